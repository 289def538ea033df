-- gpush.text: small string helpers several modules share (config, workloads,
-- results, the reports, the command line), kept here so none of them needs
-- another's module for one function.
--
--   text.closest("sm.max_warp", { "sm.count", "sm.max_warps" })  --> "sm.max_warps"
--   text.sorted_keys { b = 1, a = 2 }                             --> { "a", "b" }
--   text.keyed { b = 1, a = 2 }                                   --> "a=2;b=1"
local M = {}

-- Levenshtein distance, for "did you mean".
function M.edit_distance(a, b)
  local previous = {}
  for j = 0, #b do
    previous[j] = j
  end
  for i = 1, #a do
    local current = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      current[j] = math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
    end
    previous = current
  end
  return previous[#b]
end

-- The closest of `candidates` to `word`, if it is close enough to suggest.
function M.closest(word, candidates)
  local best, best_distance
  for _, candidate in ipairs(candidates) do
    local d = M.edit_distance(word, candidate)
    if best_distance == nil or d < best_distance then
      best, best_distance = candidate, d
    end
  end
  if best and best_distance <= math.max(2, #word // 3) then
    return best
  end
end

-- The keys of t, sorted (keys of one comparable type: all strings or all
-- numbers), so that text built from a table is the same on every run.
function M.sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    keys[#keys + 1] = k
  end
  table.sort(keys)
  return keys
end

-- "k1=v1;k2=v2" over t's keys in sorted order (sep defaults to ";"): a
-- stable text key for a flat table of parameters.
function M.keyed(t, sep)
  local parts = {}
  for i, k in ipairs(M.sorted_keys(t)) do
    parts[i] = k .. "=" .. tostring(t[k])
  end
  return table.concat(parts, sep or ";")
end

-- `s` broken into lines of at most `width` characters at spaces (a word
-- longer than that gets a line of its own); returns the list of lines.
function M.wrap(s, width)
  local lines, line = {}, ""
  for word in tostring(s):gmatch("%S+") do
    if #line > 0 and #line + 1 + #word > width then
      lines[#lines + 1] = line
      line = word
    else
      line = #line > 0 and (line .. " " .. word) or word
    end
  end
  if #line > 0 or #lines == 0 then
    lines[#lines + 1] = line
  end
  return lines
end

-- Name-description rows as an aligned list: names padded to the longest,
-- descriptions wrapped to `width` columns in all (default 100) and
-- continued under their first line.  rows = { {name, description}, ... };
-- returns the text, one row per line(s), each ending in a newline.
function M.aligned_list(rows, indent, width)
  indent, width = indent or "", width or 100
  local name_w = 0
  for _, r in ipairs(rows) do
    name_w = math.max(name_w, #r[1])
  end
  local out = {}
  local room = math.max(30, width - #indent - name_w - 2)
  for _, r in ipairs(rows) do
    for i, line in ipairs(M.wrap(r[2], room)) do
      out[#out + 1] = ("%s%-" .. name_w .. "s  %s\n"):format(indent, i == 1 and r[1] or "", line)
    end
  end
  return table.concat(out)
end

-- A source citation as a reader sees it: the declarations cite the line
-- numbers of the shared reference texts (L1157, L1098-1142, "thesis L845")
-- for the developers who check them; printed output names the section,
-- equation or table only.  "Blem Eq. 4.3 (L949-953)" -> "Blem Eq. 4.3",
-- "(Sandybridge: +1, L1293)" -> "(Sandybridge: +1)", "thesis L845" -> "thesis".
function M.without_line_refs(s)
  local ref = "L%d%d%d+%-?%d*"
  s = tostring(s)
  s = s:gsub(" ?%(" .. ref .. "[^()\n]-%)", function(group) -- a group of line numbers only
    return group:gsub(ref, ""):match("^%s*%([%s,]*%)$") and "" or group
  end)
  s = s:gsub(", ?" .. ref, "")
  s = s:gsub(ref .. "'s", "the thesis's")
  s = s:gsub(" ?" .. ref, "")
  s = s:gsub(" ?%( ?%)", ""):gsub(" +,", ",")
  return s
end

return M
