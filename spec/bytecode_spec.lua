-- The gpush executable's embedded bytecode (csrc/bytecode.h): every module of
-- lua/gpush is precompiled into it, and used only while the module's file
-- holds exactly the source compiled; an edited file, another tree on
-- GPUSH_PATH or GPUSH_NO_BYTECODE=1 compiles the source as Lua's searcher does.
local helper = require "spec_helper"

-- The module names of lua/gpush, as require spells them.
local function module_names()
  local p = io.popen("cd lua && find gpush -name '*.lua' | sort")
  local names = {}
  for path in p:lines() do
    names[#names + 1] = path:gsub("%.lua$", ""):gsub("/init$", ""):gsub("/", ".")
  end
  p:close()
  return names
end

-- Runs a chunk in gpush and returns what it prints (exit code 0 asserted).
local function gpush_print(code, env)
  local status, out, err = helper.gpush_run({ "-e", code }, env)
  assert.are.equal(0, status, err)
  return out
end

-- Prints, for every function a module's table holds, its source and lines.
local DESCRIBE = [[
for _, name in ipairs({ "gpush.text", "gpush.config", "gpush.cli", "gpush.models" }) do
  local keys = {}
  for k, v in pairs(require(name)) do
    if type(v) == "function" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local info = debug.getinfo(require(name)[k], "S")
    print(name, k, info.source, info.linedefined, info.lastlinedefined)
  end
end
print(select(2, pcall(require("gpush.config").check, 42)))
]]

describe("embedded bytecode", function()
  it("holds every module of lua/gpush, each matching its file in the build tree", function()
    local names = module_names()
    assert.is_true(#names > 50)
    local list = {}
    for i, n in ipairs(names) do
      list[i] = ("%q"):format(n)
    end
    local out = gpush_print("for _, n in ipairs({" .. table.concat(list, ",") .. "}) do " ..
      "local f, file = package.searchers[2](n) " ..
      "print(n, type(f), file == package.searchpath(n, package.path)) end")
    local expected = {}
    for i, n in ipairs(names) do
      expected[i] = n .. "\tfunction\ttrue"
    end
    assert.are.equal(table.concat(expected, "\n") .. "\n", out)
  end)

  it("leaves other modules to Lua's searchers, adding nothing to 'not found'", function()
    assert.are.equal("5\t0\n", gpush_print(
      "print(#package.searchers, select('#', package.searchers[2]('no.such.module')))"))
    local code, _, err = helper.gpush_run({ "-e", "require 'gpush.no_such_module'" })
    assert.are.equal(1, code)
    local code0, _, err0 = helper.gpush_run({ "-e", "require 'gpush.no_such_module'" },
      { GPUSH_NO_BYTECODE = "1" })
    assert.are.equal(1, code0)
    assert.are.equal(err0, err)
  end)

  it("is switched off by GPUSH_NO_BYTECODE=1 (Lua's four searchers)", function()
    assert.are.equal("4\n", gpush_print("print(#package.searchers)", { GPUSH_NO_BYTECODE = "1" }))
    assert.are.equal("5\n", gpush_print("print(#package.searchers)", { GPUSH_NO_BYTECODE = "0" }))
  end)

  it("gives the same sources, lines and error messages as compiling the source", function()
    local embedded = gpush_print(DESCRIBE)
    assert.matches("gpush/text.lua\t", embedded, 1, true)
    assert.matches("expected a configuration", embedded, 1, true)
    assert.are.equal(gpush_print(DESCRIBE, { GPUSH_NO_BYTECODE = "1" }), embedded)
  end)

  it("never runs stale bytecode: an edited module is compiled from its file", function()
    local dir = helper.temp_dir()
    assert(os.execute("cp -r lua/gpush " .. dir .. "/gpush"))
    local source = helper.read_file(dir .. "/gpush/text.lua")
    local env = { GPUSH_PATH = dir }
    local probe = "print(select('#', package.searchers[2]('gpush.text')), require('gpush.text').marker)"
    -- the copy, unchanged: the embedded bytecode serves it
    assert.are.equal("2\tnil\n", gpush_print(probe, env))
    -- a new field: another length
    local f = assert(io.open(dir .. "/gpush/text.lua", "wb"))
    f:write((source:gsub("\nreturn M\n$", "\nM.marker = 'edited'\nreturn M\n")))
    f:close()
    assert.are.equal("0\tedited\n", gpush_print(probe, env))
    -- the same length, one character changed: the digest tells
    local same_length = source:gsub("\nreturn M\n$", "\nreturn M\n"):gsub("^%-%- gpush", "-- gpusH", 1)
    assert.are.equal(#source, #same_length)
    assert.are_not.equal(source, same_length)
    f = assert(io.open(dir .. "/gpush/text.lua", "wb"))
    f:write(same_length)
    f:close()
    assert.are.equal("0\tnil\n", gpush_print(probe, env))
    os.execute("rm -rf " .. dir)
  end)

  it("answers a command bit for bit as the compiled sources do", function()
    local code, out = helper.gpush_run({ "config", "show", "rtx3070" })
    assert.are.equal(0, code)
    local code0, out0 = helper.gpush_run({ "config", "show", "rtx3070" }, { GPUSH_NO_BYTECODE = "1" })
    assert.are.equal(0, code0)
    assert.are.equal(out0, out)
  end)
end)
