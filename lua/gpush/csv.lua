-- gpush.csv: CSV text as RFC 4180 writes it, with '#' comment lines.
--
--   csv.field(v)            -- one field: numbers exactly (shortest text that
--                           -- reads back to the same double), strings quoted
--                           -- when they hold , " CR or LF or edge spaces
--   csv.line(values, n)     -- n fields joined by commas, CRLF-free
--   records, comments, lines = csv.parse(text)
--                           -- (a leading UTF-8 byte-order mark is skipped)
--                           -- the records (lists of strings), the text of
--                           -- each comment line ('#' at a record's start,
--                           -- without the '#' and one space) and the line
--                           -- each record starts on; or nil, "line L: problem"
local M = {}

-- The shortest of %.15g, %.16g, %.17g that reads back to n; integral values
-- below 2^53 print as integers whatever their Lua subtype, so an integer and
-- the float with its value give the same text.
function M.number(n)
  if n ~= n or n == math.huge or n == -math.huge then
    return tostring(n)
  end
  if math.type(n) == "integer" then
    return tostring(n)
  end
  if n == math.floor(n) and math.abs(n) < 2 ^ 53 then
    return ("%.0f"):format(n)
  end
  for digits = 15, 17 do
    local s = ("%." .. digits .. "g"):format(n)
    if tonumber(s) == n then
      return s
    end
  end
end

-- A value as plain text: numbers as M.number writes them, anything else by
-- tostring (a point's parameter values in overrides and summaries).
function M.text(v)
  return type(v) == "number" and M.number(v) or tostring(v)
end

function M.field(v)
  if v == nil then
    return ""
  elseif type(v) == "number" then
    return M.number(v)
  end
  local s = tostring(v)
  if s:find('[,"\r\n]') or s:find("^%s") or s:find("%s$") or s:sub(1, 1) == "#" then
    return '"' .. s:gsub('"', '""') .. '"'
  end
  return s
end

function M.line(values, n)
  local parts = {}
  for i = 1, n or #values do
    parts[i] = M.field(values[i])
  end
  return table.concat(parts, ",")
end

-- One quoted field starting at `pos` (the opening quote); returns its text
-- and the position after the closing quote.
local function quoted(text, pos, line)
  local parts, i = {}, pos + 1
  while true do
    local q = text:find('"', i, true)
    if not q then
      error({ csv_error = ("line %d: unterminated quoted field"):format(line) }, 0)
    end
    parts[#parts + 1] = text:sub(i, q - 1)
    if text:sub(q + 1, q + 1) == '"' then
      parts[#parts + 1] = '"'
      i = q + 2
    else
      return table.concat(parts), q + 1
    end
  end
end

local function parse(text)
  local records, comments, lines = {}, {}, {}
  local pos, line, n = 1, 1, #text
  if text:sub(1, 3) == "\239\187\191" then -- a UTF-8 byte-order mark (spreadsheets write one) is no text
    pos = 4
  end
  while pos <= n do
    if text:sub(pos, pos) == "#" then
      local stop = text:find("\n", pos, true) or n + 1
      comments[#comments + 1] = text:sub(pos + 1, stop - 1):gsub("\r$", ""):gsub("^ ", "")
      pos, line = stop + 1, line + 1
    else
      local record = {}
      lines[#records + 1] = line
      while true do
        local value
        if text:sub(pos, pos) == '"' then
          value, pos = quoted(text, pos, line)
          local after = text:sub(pos, pos)
          if after ~= "," and after ~= "\n" and after ~= "\r" and after ~= "" then
            error({ csv_error = ("line %d: text after a closing quote"):format(line) }, 0)
          end
        else
          local stop = text:find("[,\r\n]", pos) or n + 1
          value = text:sub(pos, stop - 1)
          pos = stop
        end
        line = line + select(2, value:gsub("\n", ""))
        record[#record + 1] = value
        local c = text:sub(pos, pos)
        if c == "," then
          pos = pos + 1
        else
          if c == "\r" then
            pos = pos + 1
          end
          if text:sub(pos, pos) == "\n" then
            pos = pos + 1
          end
          line = line + 1
          break
        end
      end
      records[#records + 1] = record
    end
  end
  return records, comments, lines
end

function M.parse(text)
  local ok, records, comments, lines = pcall(parse, text)
  if not ok then
    if type(records) == "table" and records.csv_error then
      return nil, records.csv_error
    end
    error(records, 0)
  end
  return records, comments, lines
end

return M
