-- gpush.text: wrapping, aligned lists, and citations without reference
-- line numbers, and the commands that print them.
local text = require "gpush.text"
local helper = require "spec_helper"

describe("gpush.text", function()
  it("wraps at spaces, a long word on a line of its own", function()
    assert.same({ "one two", "three", "four" }, text.wrap("one two three four", 8))
    assert.same({ "abcdefghijk", "x" }, text.wrap("abcdefghijk x", 5))
    assert.same({ "" }, text.wrap("", 10))
  end)

  it("aligns names and continues a wrapped description under its first line", function()
    local out = text.aligned_list({ { "a", "short" },
      { "longer_name", "one two three four five six seven eight nine ten" } }, "  ", 40)
    -- descriptions get at least 30 columns
    assert.equal("  a            short\n  longer_name  one two three four five six\n"
      .. "               seven eight nine ten\n", out)
  end)

  it("drops the reference texts' line numbers from a citation, and nothing else", function()
    assert.equal("Blem Eq. 4.3", text.without_line_refs("Blem Eq. 4.3 (L949-953)"))
    assert.equal("Blem Eq. 4.5", text.without_line_refs("Blem Eq. 4.5 (L1059-1068, L1302)"))
    assert.equal("Extra cycles (Sandybridge: +1)", text.without_line_refs("Extra cycles (Sandybridge: +1, L1293)"))
    assert.equal("thesis (30 % cache area)", text.without_line_refs("thesis L879 (30 % cache area)"))
    assert.equal("thesis", text.without_line_refs("thesis L845, L778"))
    assert.equal("Blem Sec. 4.2.1 simple pipelines, Eq. 4.8-4.10",
      text.without_line_refs("Blem Sec. 4.2.1 simple pipelines (L1086-1096), Eq. 4.8-4.10"))
    assert.equal("the thesis's validation value", text.without_line_refs("L845's validation value"))
    -- cache levels and aligned columns stay
    assert.equal("L1 and L2, L3 Accesses", text.without_line_refs("L1 and L2, L3 Accesses"))
    assert.equal("x    y (Table 4.1)", text.without_line_refs("x    y (Table 4.1)"))
  end)

  it("keeps line numbers out of what the Blem commands print", function()
    for _, args in ipairs { { "mech", "--describe", "modules" }, { "mech", "--describe", "score" },
      { "mech", "--describe", "mcore" }, { "mech", "--describe", "inputs" }, { "darksilicon", "--params" } } do
      local code, out = helper.gpush_run(args)
      assert.are.equal(0, code)
      assert.is_nil(out:find("L%d%d%d"), table.concat(args, " ") .. ": " .. tostring(out:match("[^\n]*L%d%d%d[^\n]*")))
      assert.is_nil(out:find("[Ii]ssue %d"), table.concat(args, " "))
    end
  end)
end)
