-- gpush.json: JSON for gpush's machine-readable output.
--
-- encode(value) writes objects with sorted keys and numbers with %.17g (integers
-- as integers), so the same value always gives the same bytes.  A table is an
-- array when its keys are exactly 1..n (an empty table is `[]` unless it is
-- M.object()).  decode(text) returns the value or nil, message; it refuses
-- a key given twice in one object (which value is meant?) and nesting
-- deeper than M.MAX_DEPTH levels (which would exhaust the stack).
local M = {}

local object_marker = setmetatable({}, { __mode = "k" })

-- Marks a table so it encodes as an object even when empty.
function M.object(t)
  t = t or {}
  object_marker[t] = true
  return t
end

local escapes = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}

local find, format, concat, sort = string.find, string.format, table.concat, table.sort
local math_type, floor, abs, huge = math.type, math.floor, math.abs, math.huge

local function encode_string(s)
  if not find(s, '[%c"\\]') then -- nothing to escape (most strings)
    return '"' .. s .. '"'
  end
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function encode_number(n)
  if math_type(n) == "integer" then
    return tostring(n)
  end
  if n ~= n or n == huge or n == -huge then
    error("json: cannot encode " .. tostring(n), 0)
  end
  if n == floor(n) and abs(n) < 2 ^ 53 then
    return format("%.0f", n)
  end
  return format("%.17g", n)
end

-- Per depth, built once: what opens a container's first entry, what goes
-- between entries, and what closes it (pretty: newline and indentation).
local function layout(pretty)
  local function memo(build)
    return setmetatable({}, { __index = function(t, depth)
      local v = build(depth)
      t[depth] = v
      return v
    end })
  end
  if not pretty then
    local constant = memo(function() return "" end)
    return constant, memo(function() return "," end), constant
  end
  return memo(function(depth) return "\n" .. ("  "):rep(depth + 1) end),
    memo(function(depth) return ",\n" .. ("  "):rep(depth + 1) end),
    memo(function(depth) return "\n" .. ("  "):rep(depth) end)
end

-- Encodes a value; with `pretty`, two-space indentation.  The text is
-- built in one buffer (pieces appended, one concat at the end), numbers
-- and strings inside a container without a call of their own, each table
-- walked once to tell an array from an object and collect its keys, and
-- each object key escaped once per call: a model command's --json output
-- (hundreds of objects with the same keys) cost more than its predictions
-- when every level returned a string of its own.
function M.encode(value, pretty)
  local buf, n = {}, 0
  local seen, key_text = {}, {}
  local open, between, close = layout(pretty)
  local colon = pretty and ": " or ":"
  local null = M.null
  local encode_table

  -- Appends v's text.
  local function encode_value(v, depth)
    local kind = type(v)
    if kind == "string" then
      n = n + 1
      buf[n] = encode_string(v)
    elseif kind == "number" then
      n = n + 1
      buf[n] = encode_number(v)
    elseif kind == "boolean" then
      n = n + 1
      buf[n] = tostring(v)
    elseif v == nil or v == null then
      n = n + 1
      buf[n] = "null"
    elseif kind == "table" then
      encode_table(v, depth)
    else
      error("json: cannot encode a " .. kind, 0)
    end
  end

  -- Appends an entry's value: numbers and strings here, the rest through
  -- encode_value (the same text either way).
  local function encode_entry(v, depth)
    local kind = type(v)
    if kind == "number" then
      n = n + 1
      buf[n] = encode_number(v)
    elseif kind == "string" then
      n = n + 1
      buf[n] = encode_string(v)
    else
      encode_value(v, depth)
    end
  end

  function encode_table(t, depth)
    if seen[t] then
      error("json: cannot encode a table that contains itself", 0)
    end
    seen[t] = true
    -- an array when its keys are exactly 1..#t (and it is not M.object)
    local keys, count, bad = {}, 0, nil
    for k in pairs(t) do
      count = count + 1
      keys[count] = k
      local kind = type(k)
      if not bad and kind ~= "string" and kind ~= "number" then
        bad = kind
      end
    end
    local length = #t
    if count == length and not object_marker[t] then
      if length == 0 then
        n = n + 1
        buf[n] = "[]"
      else
        n = n + 1
        buf[n] = "[" .. open[depth]
        local sep = between[depth]
        encode_entry(t[1], depth + 1)
        for i = 2, length do
          n = n + 1
          buf[n] = sep
          encode_entry(t[i], depth + 1)
        end
        n = n + 1
        buf[n] = close[depth] .. "]"
      end
    elseif count == 0 then
      n = n + 1
      buf[n] = "{}"
    else
      if bad then
        error("json: object keys must be strings, got " .. bad, 0)
      end
      for i = 1, count do
        local k = keys[i]
        if type(k) ~= "string" then
          keys[i] = tostring(k)
        end
      end
      sort(keys)
      n = n + 1
      buf[n] = "{" .. open[depth]
      local sep = between[depth]
      for i = 1, count do
        local k = keys[i]
        local v = t[k]
        if v == nil then
          v = t[tonumber(k)]
        end
        if i > 1 then
          n = n + 1
          buf[n] = sep
        end
        local text = key_text[k]
        if not text then
          text = encode_string(k) .. colon
          key_text[k] = text
        end
        n = n + 1
        buf[n] = text
        encode_entry(v, depth + 1)
      end
      n = n + 1
      buf[n] = close[depth] .. "}"
    end
    seen[t] = nil
  end

  encode_value(value, 0)
  return concat(buf, "", 1, n)
end

-- The JSON null, as decode returns it and encode accepts it.
M.null = setmetatable({}, { __tostring = function() return "null" end })

-- Decoding ----------------------------------------------------------------------

local decode_value

-- Arrays and objects nested deeper than this are refused: no gpush file
-- comes close (a results file nests 4 levels), and the recursive decoder
-- would otherwise run out of stack.
M.MAX_DEPTH = 200

local function decode_error(text, pos, what)
  local line = select(2, text:sub(1, pos):gsub("\n", "")) + 1
  error({ json_error = ("line %d (byte %d): %s"):format(line, pos, what) }, 0)
end

local function skip_space(text, pos)
  return text:find("[^ \t\r\n]", pos) or #text + 1
end

local function decode_string(text, pos)
  local parts = {}
  local i = pos + 1
  while true do
    local c = text:sub(i, i)
    if c == "" then
      decode_error(text, pos, "unterminated string")
    elseif c == '"' then
      return table.concat(parts), i + 1
    elseif c == "\\" then
      local e = text:sub(i + 1, i + 1)
      local simple = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }
      if simple[e] then
        parts[#parts + 1] = simple[e]
        i = i + 2
      elseif e == "u" then
        local hex = text:match("^%x%x%x%x", i + 2)
        if not hex then
          decode_error(text, i, "bad \\u escape")
        end
        parts[#parts + 1] = utf8.char(tonumber(hex, 16))
        i = i + 6
      else
        decode_error(text, i, "bad escape")
      end
    else
      local j = text:find('["\\]', i) or #text + 1
      parts[#parts + 1] = text:sub(i, j - 1)
      i = j
    end
  end
end

local function decode_number(text, pos)
  local s = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
  if not s or s == "" or s == "-" then
    decode_error(text, pos, "unexpected character '" .. text:sub(pos, pos) .. "'")
  end
  local n = tonumber(s)
  if n == nil then
    decode_error(text, pos, "bad number '" .. s .. "'")
  end
  if n == math.huge or n == -math.huge then -- e.g. 1e999: no double holds it, and encode refuses inf
    decode_error(text, pos, "number '" .. s .. "' out of range")
  end
  if s:find("[.eE]") then
    n = n + 0.0
  else
    n = math.tointeger(n) or n
  end
  return n, pos + #s
end

local function decode_list(text, pos, close, item, depth)
  if depth > M.MAX_DEPTH then
    decode_error(text, pos, ("nested deeper than %d levels"):format(M.MAX_DEPTH))
  end
  local result = {}
  pos = skip_space(text, pos + 1)
  if text:sub(pos, pos) == close then
    return result, pos + 1
  end
  while true do
    pos = item(result, pos)
    pos = skip_space(text, pos)
    local c = text:sub(pos, pos)
    if c == close then
      return result, pos + 1
    elseif c ~= "," then
      decode_error(text, pos, "expected ',' or '" .. close .. "'")
    end
    pos = skip_space(text, pos + 1)
  end
end

function decode_value(text, pos, depth)
  depth = depth or 1
  pos = skip_space(text, pos)
  local c = text:sub(pos, pos)
  if c == "{" then
    local obj, next_pos = decode_list(text, pos, "}", function(result, p)
      if text:sub(p, p) ~= '"' then
        decode_error(text, p, "expected a string key")
      end
      local key, q = decode_string(text, p)
      if result[key] ~= nil then
        decode_error(text, p, ("the key '%s' appears twice in one object"):format(key))
      end
      q = skip_space(text, q)
      if text:sub(q, q) ~= ":" then
        decode_error(text, q, "expected ':'")
      end
      local value
      value, q = decode_value(text, q + 1, depth + 1)
      result[key] = value
      return q
    end, depth)
    return M.object(obj), next_pos
  elseif c == "[" then
    return decode_list(text, pos, "]", function(result, p)
      local value, q = decode_value(text, p, depth + 1)
      result[#result + 1] = value
      return q
    end, depth)
  elseif c == '"' then
    return decode_string(text, pos)
  elseif text:sub(pos, pos + 3) == "true" then
    return true, pos + 4
  elseif text:sub(pos, pos + 4) == "false" then
    return false, pos + 5
  elseif text:sub(pos, pos + 3) == "null" then
    return M.null, pos + 4
  elseif c == "" then
    decode_error(text, pos, "unexpected end of input")
  end
  return decode_number(text, pos)
end

-- Decodes a JSON text; returns the value, or nil and "line L (byte B): problem".
function M.decode(text)
  local ok, value, pos = pcall(decode_value, text, 1)
  if not ok then
    if type(value) == "table" and value.json_error then
      return nil, value.json_error
    end
    error(value, 0)
  end
  pos = skip_space(text, pos)
  if pos <= #text then
    return nil, ("line %d (byte %d): unexpected text after the value"):format(
      select(2, text:sub(1, pos):gsub("\n", "")) + 1, pos)
  end
  return value
end

return M
