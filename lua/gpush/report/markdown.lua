-- gpush.report.markdown: Markdown tables and documents for reports.
--
--   markdown.cell(v)                    -- a value as cell text (| escaped)
--   markdown.table(headers, rows)       -- lines of a pipe table; rows are
--                                       -- lists of cell values
--   markdown.stamp(provenance)          -- a "Provenance" section listing
--                                       -- "key: `value`", keys sorted
local csv = require "gpush.csv"
local text = require "gpush.text"

local M = {}

function M.cell(v)
  if v == nil then
    return "-"
  end
  local s = type(v) == "number" and csv.number(v) or tostring(v)
  return (s:gsub("|", "\\|"):gsub("\r?\n", " "))
end

function M.table(headers, rows)
  local lines = {}
  local function row_line(values)
    local cells = {}
    for i = 1, #headers do
      cells[i] = M.cell(values[i])
    end
    return "| " .. table.concat(cells, " | ") .. " |"
  end
  lines[1] = row_line(headers)
  lines[2] = "|" .. ("---|"):rep(#headers)
  for _, r in ipairs(rows) do
    lines[#lines + 1] = row_line(r)
  end
  return lines
end

-- Provenance keys in a fixed order (sorted), so the stamp is stable.
function M.stamp(provenance)
  local lines = { "## Provenance", "" }
  for _, k in ipairs(text.sorted_keys(provenance)) do
    lines[#lines + 1] = ("- %s: `%s`"):format(k, tostring(provenance[k]):gsub("`", "'"))
  end
  return lines
end

return M
