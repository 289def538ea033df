-- The gpush executable: scripts, -e, -i, --version, --help, subcommands,
-- exit codes and error reports.
local helper = require "spec_helper"
local run, write_temp = helper.gpush_run, helper.write_temp

describe("gpush executable", function()
  it("prints its version, the Lua it embeds and the module root", function()
    local code, out = run { "--version" }
    assert.are.equal(0, code)
    local core = require "gpush.core"
    assert.matches("^gpush " .. core.version():gsub("%.", "%%.") .. " %(Lua 5%.4", out)
    assert.matches("modules: .*share/lua/5%.4", out)
  end)

  it("prints usage and the subcommands with --help", function()
    local code, out = run { "--help" }
    assert.are.equal(0, code)
    assert.matches("usage: gpush SCRIPT", out, 1, true)
    assert.matches("\n  config ", out, 1, true)
  end)

  it("runs a script that sees its arguments in arg", function()
    local script = write_temp([[
      assert(arg[0]:match("%.lua$"))
      print(#arg, arg[1], arg[2], ...)
    ]], ".lua")
    local code, out, err = run { script, "alpha", "beta" }
    assert.are.equal(0, code, err)
    assert.are.equal("2\talpha\tbeta\talpha\tbeta\n", out)
    os.remove(script)
  end)

  it("runs a chunk with -e and can require gpush", function()
    local code, out = run { "-e", "print(require('gpush').version == require('gpush.core').version())" }
    assert.are.equal(0, code)
    assert.are.equal("true\n", out)
  end)

  it("answers expressions and statements at the -i prompt", function()
    local code, out = run({ "-i" }, nil, "x = 6 * 7\nx + 1\nfor i = 1, 2 do\nprint(i)\nend\n")
    assert.are.equal(0, code)
    assert.matches("43\n", out, 1, true)
    assert.matches("1\n2\n", out, 1, true)
  end)

  it("reports a script error with script:line and a traceback, exit 1", function()
    local script = write_temp("local x = 1\nlocal function f() error('boom') end\nf()\n", ".lua")
    local code, out, err = run { script }
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.matches("gpush: " .. script:gsub("%p", "%%%0") .. ":2: boom", err)
    assert.matches("stack traceback:", err, 1, true)
    os.remove(script)
  end)

  it("survives a non-string error object and a syntax error", function()
    local code, _, err = run { "-e", "error({})" }
    assert.are.equal(1, code)
    assert.matches("error object is a table value", err, 1, true)
    code, _, err = run { "-e", "x = = 1" }
    assert.are.equal(1, code)
    assert.matches("(command line):1:", err, 1, true)
  end)

  it("calls os.exit codes through unchanged", function()
    local code = run { "-e", "os.exit(3)" }
    assert.are.equal(3, code)
  end)

  it("exits 2 on usage errors", function()
    local code, _, err = run {}
    assert.are.equal(2, code)
    assert.matches("no script or command given", err, 1, true)
    code, _, err = run { "--frobnicate" }
    assert.are.equal(2, code)
    assert.matches("unknown option '--frobnicate'", err, 1, true)
    code, _, err = run { "-e" }
    assert.are.equal(2, code)
    assert.matches("-e needs a chunk of Lua code", err, 1, true)
    code, _, err = run { "/nonexistent/script.lua" }
    assert.are.equal(2, code)
    assert.matches("cannot open /nonexistent/script.lua", err, 1, true)
  end)

  it("suggests the closest subcommand for a typo, exit 2", function()
    local code, _, err = run { "confg" }
    assert.are.equal(2, code)
    assert.matches("unknown command or script 'confg' (did you mean 'config'?)", err, 1, true)
  end)
end)

describe("gpush.text", function()
  local text = require "gpush.text"
  it("measures edit distance", function()
    assert.are.equal(0, text.edit_distance("abc", "abc"))
    assert.are.equal(1, text.edit_distance("confg", "config"))
    assert.are.equal(3, text.edit_distance("kitten", "sitting"))
    assert.are.equal(4, text.edit_distance("", "abcd"))
  end)
  it("suggests only close names", function()
    assert.are.equal("sm.max_warps", text.closest("sm.max_warp", { "sm.count", "sm.max_warps" }))
    assert.is_nil(text.closest("dram", { "sm.count", "l1.mshrs" }))
  end)
  it("lists keys and key=value text in sorted order", function()
    assert.are.same({ "a", "b", "c" }, text.sorted_keys { c = 1, a = 2, b = 3 })
    assert.are.same({ 1, 2, 10 }, text.sorted_keys { [10] = "x", [2] = "y", [1] = "z" })
    assert.are.equal("a=2;b=x;c=true", text.keyed { c = true, a = 2, b = "x" })
    assert.are.equal("a=1, b=2", text.keyed({ b = 2, a = 1 }, ", "))
    assert.are.equal("", text.keyed {})
  end)
end)
