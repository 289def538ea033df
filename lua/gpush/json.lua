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

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function encode_number(n)
  if math.type(n) == "integer" then
    return tostring(n)
  end
  if n ~= n or n == math.huge or n == -math.huge then
    error("json: cannot encode " .. tostring(n), 0)
  end
  if n == math.floor(n) and math.abs(n) < 2 ^ 53 then
    return ("%.0f"):format(n)
  end
  return ("%.17g"):format(n)
end

local function array_length(t)
  local n = #t
  local count = 0
  for _ in pairs(t) do
    count = count + 1
  end
  if count == n and not object_marker[t] then
    return n
  end
end

local encode_value

local function encode_table(t, indent, depth, seen)
  if seen[t] then
    error("json: cannot encode a table that contains itself", 0)
  end
  seen[t] = true
  local newline, pad, inner = "", "", ""
  if indent then
    newline = "\n"
    pad = indent:rep(depth)
    inner = indent:rep(depth + 1)
  end
  local parts = {}
  local n = array_length(t)
  local out
  if n then
    for i = 1, n do
      parts[i] = inner .. encode_value(t[i], indent, depth + 1, seen)
    end
    out = n == 0 and "[]" or "[" .. newline .. table.concat(parts, "," .. newline) .. newline .. pad .. "]"
  else
    local keys = {}
    for k in pairs(t) do
      if type(k) ~= "string" and type(k) ~= "number" then
        error("json: object keys must be strings, got " .. type(k), 0)
      end
      keys[#keys + 1] = tostring(k)
    end
    table.sort(keys)
    for i, k in ipairs(keys) do
      local v = t[k]
      if v == nil then
        v = t[tonumber(k)]
      end
      parts[i] = inner .. encode_string(k) .. (indent and ": " or ":") .. encode_value(v, indent, depth + 1, seen)
    end
    out = #keys == 0 and "{}" or "{" .. newline .. table.concat(parts, "," .. newline) .. newline .. pad .. "}"
  end
  seen[t] = nil
  return out
end

function encode_value(v, indent, depth, seen)
  local kind = type(v)
  if kind == "string" then
    return encode_string(v)
  elseif kind == "number" then
    return encode_number(v)
  elseif kind == "boolean" then
    return tostring(v)
  elseif v == nil or v == M.null then
    return "null"
  elseif kind == "table" then
    return encode_table(v, indent, depth, seen)
  end
  error("json: cannot encode a " .. kind, 0)
end

-- The JSON null, as decode returns it and encode accepts it.
M.null = setmetatable({}, { __tostring = function() return "null" end })

-- Encodes a value; with `pretty`, two-space indentation.
function M.encode(value, pretty)
  return encode_value(value, pretty and "  " or nil, 0, {})
end

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
