-- gpush.results: the table object, its CSV/JSON round trips and Markdown.
local results = require "gpush.results"
local csv = require "gpush.csv"
local markdown = require "gpush.report.markdown"

local function sample()
  return results.new {
    columns = { "kernel", "model", "warps", "cycles", "ok", "note" },
    rows = {
      { kernel = "a", model = "rr", warps = 8, cycles = 100.5, ok = true, note = 'says "hi", twice' },
      { kernel = "a", model = "gto", warps = 8, cycles = 90, ok = false, note = "line one\nline two" },
      { kernel = "b", model = "rr", warps = 16, cycles = 1 / 3, ok = true, note = " padded " },
      { kernel = "b", model = "gto", warps = 16, cycles = 1e-300, ok = true, note = "#not a comment" },
      { kernel = "c,d", model = "rr", warps = 32, cycles = 2 ^ 60 + 0.0, ok = true },
    },
    provenance = { gpush = "0.1.0", command = "gpush x.lua --out d", seed = "7" },
    failures = { { kernel = "c,d", model = "gto", message = "c,d [gto] at warps=32: boom" } },
    incomplete = "interrupted (SIGINT)",
  }
end

describe("gpush.csv", function()
  it("writes numbers as the shortest text that reads back exactly", function()
    assert.are.equal("0.1", csv.number(0.1))
    assert.are.equal("0.3333333333333333", csv.number(1 / 3))
    assert.are.equal("90", csv.number(90.0))
    assert.are.equal("90", csv.number(90))
    assert.are.equal("1e-300", csv.number(1e-300))
    for _, x in ipairs { 0.1 + 0.2, math.pi, 123456.789e10, -2.5e-7, 2 ^ 53 + 2.0 } do
      assert.are.equal(x, tonumber(csv.number(x)))
    end
  end)

  it("quotes what needs quoting and parses it back", function()
    assert.are.equal('"a,b"', csv.field("a,b"))
    assert.are.equal('"say ""x"""', csv.field('say "x"'))
    assert.are.equal("plain", csv.field("plain"))
    local records, comments = csv.parse('# note: 1\nx,"a,b","q""q"\r\n"multi\nline",,3\n')
    assert.are.same({ "note: 1" }, comments)
    assert.are.same({ { "x", "a,b", 'q"q' }, { "multi\nline", "", "3" } }, records)
  end)

  it("names the line of a malformed field", function()
    local records, err = csv.parse('a,b\n1,"open\n')
    assert.is_nil(records)
    assert.are.equal("line 2: unterminated quoted field", err)
    records, err = csv.parse('a,"b"c\n')
    assert.is_nil(records)
    assert.are.equal("line 1: text after a closing quote", err)
  end)
end)

describe("gpush.results", function()
  it("round-trips through CSV: values, types, columns, provenance, incomplete and failures", function()
    local t = sample()
    local text = t:to_csv()
    assert.matches("# gpush: 0.1.0\n", text, 1, true)
    assert.matches("# incomplete: interrupted (SIGINT)\n", text, 1, true)
    assert.matches("# failed: c,d [gto] at warps=32: boom\n", text, 1, true)
    local back = assert(results.from_csv(text))
    assert.are.same(t.columns, back.columns)
    assert.are.same(t.provenance, back.provenance)
    assert.are.equal(t.incomplete, back.incomplete)
    assert.are.equal(1, #back.failures)
    assert.are.equal("c,d [gto] at warps=32: boom", back.failures[1].message)
    assert.are.equal(#t.rows, #back.rows)
    for i, row in ipairs(t.rows) do
      for _, c in ipairs(t.columns) do
        assert.are.equal(row[c], back.rows[i][c], ("row %d column %s"):format(i, c))
      end
    end
    assert.is_nil(back.rows[5].note) -- an empty field reads back as a missing value
    assert.are.equal(text, back:to_csv()) -- and writes the same bytes again
  end)

  it("round-trips through JSON exactly, failures and extra fields included", function()
    local t = sample()
    t.extra.sweep = { name = "s", points = { { warps = 8 } } }
    local back = assert(results.from_json(t:to_json()))
    assert.are.same(t.columns, back.columns)
    assert.are.same(t.provenance, back.provenance)
    assert.are.same(t.failures, back.failures)
    assert.are.equal(t.incomplete, back.incomplete)
    assert.are.same(t.extra.sweep, back.extra.sweep)
    for i, row in ipairs(t.rows) do
      for _, c in ipairs(t.columns) do
        assert.are.equal(row[c], back.rows[i][c])
      end
    end
    assert.are.equal(t:to_json(), back:to_json())
  end)

  it("reads and writes files, and refuses what is not a results file", function()
    local t = sample()
    local path = os.tmpname()
    assert.is_true(t:write_csv(path))
    assert.are.equal(t:to_csv(), assert(results.read_csv(path)):to_csv())
    assert.is_true(t:write_json(path))
    assert.are.equal(t:to_json(), assert(results.read_json(path)):to_json())
    os.remove(path)
    local r, err = results.from_json('{"rows": []}', "x.json")
    assert.is_nil(r)
    assert.matches("x.json: not a gpush results file", err, 1, true)
    r, err = results.from_csv("# types: n\na\nnot-a-number\n", "y.csv")
    assert.is_nil(r)
    assert.are.equal("y.csv: row 1, column 'a': expected a finite number, got 'not-a-number'", err)
    r, err = results.from_csv("a,b\n1\n", "z.csv")
    assert.is_nil(r)
    assert.are.equal("z.csv: row 1 has 1 fields, the header 2", err)
    local missing
    missing, err = results.read_csv("/nonexistent/r.csv")
    assert.is_nil(missing)
    assert.matches("/nonexistent/r.csv", err, 1, true)
  end)

  it("filters, sorts, groups and pivots", function()
    local t = sample()
    assert.are.equal(2, #t:filter({ kernel = "a" }).rows)
    assert.are.equal(3, #t:filter({ model = "rr" }).rows)
    assert.are.equal(4, #t:filter({ kernel = { "a", "b" } }).rows)
    assert.are.equal(2, #t:filter(function(r) return r.cycles < 1 end).rows)
    local sorted = t:sort("cycles")
    assert.are.same({ 1e-300, 1 / 3, 90, 100.5, 2 ^ 60 }, (sorted:column("cycles")))
    local by_model_desc = t:sort("model", "-warps")
    assert.are.same({ "gto", "gto", "rr", "rr", "rr" }, (by_model_desc:column("model")))
    assert.are.same({ 16, 8, 32, 16, 8 }, (by_model_desc:column("warps")))
    local groups = t:group("kernel")
    assert.are.equal(3, #groups)
    assert.are.equal("a", groups[1].key.kernel)
    assert.are.equal(2, #groups[1].rows.rows)
    assert.are.equal("c,d", groups[3].key.kernel)
    local pivot = t:pivot("kernel", "model", "cycles")
    assert.are.same({ "kernel", "rr", "gto" }, pivot.columns)
    assert.are.equal(100.5, pivot.rows[1].rr)
    assert.are.equal(90, pivot.rows[1].gto)
    assert.is_nil(pivot.rows[3].gto)
    local total = t:pivot("model", "kernel", "warps", function(list)
      local s = 0
      for _, v in ipairs(list) do
        s = s + v
      end
      return s
    end)
    assert.are.equal(8, total.rows[1].a)
    assert.are.equal(32, total.rows[1]["c,d"])
    assert.has_error(function() t:filter(42) end,
      "Results:filter: expected a function or a table of column = value, got number")
  end)

  it("writes Markdown with escaped cells, failures and the provenance list", function()
    local text = sample():to_markdown { title = "Sample", formats = { cycles = "%.2f" } }
    assert.matches("# Sample\n", text, 1, true)
    assert.matches("**Incomplete:** interrupted (SIGINT)", text, 1, true)
    assert.matches("| a | rr | 8 | 100.50 | true | says \"hi\", twice |", text, 1, true)
    assert.matches("| a | gto | 8 | 90.00 | false | line one line two |", text, 1, true)
    assert.matches("## Failed points (1)", text, 1, true)
    assert.matches("## Provenance\n\n- command: `gpush x.lua --out d`\n- gpush: `0.1.0`\n- seed: `7`", text, 1, true)
    assert.are.equal("a \\| b", markdown.cell("a | b"))
  end)
end)
