-- The LuaJIT 2.1 build of gpush.core loads and works under luajit.
local helper = require "spec_helper"

describe("gpush.core under LuaJIT", function()
  it("loads the LuaJIT build and reports the same version", function()
    local module = helper.build_dir .. "/lib/lua/5.1/gpush/core.so"
    local f = io.open(module, "rb")
    assert.is_not_nil(f, "LuaJIT build missing: " .. module)
    f:close()
    local code, out, err = helper.run(("luajit -e %s"):format(helper.shell_quote(
      ("package.cpath=%q; local core = require('gpush.core'); print(core.version(), core.lua_version)")
        :format(helper.build_dir .. "/lib/lua/5.1/?.so"))))
    assert.are.equal(0, code, err)
    assert.are.equal(require("gpush.core").version() .. "\tLua 5.1\n", out)
  end)

  it("parses a trace and summarises the kernel under LuaJIT", function()
    local text = "-kernel name = j\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
      .. "-accelsim tracer version = 3\n#traces format = x\n#BEGIN_TB\nthread block = 0,0,0\n"
      .. "warp = 0\ninsts = 2\n0010 ffffffff 1 R2 IADD3 0 0\n0020 ffffffff 1 R3 FFMA 2 R2 R2 0\n#END_TB\n"
    local code, out, err = helper.run(("luajit -e %s"):format(helper.shell_quote(
      ("package.cpath=%q; local k = assert(require('gpush.core').kernel_parse(%q, 'j')); "
        .. "local i = k:info(); print(i.warp_instructions, i.class_mix.fp32, k:warp(0)[2].deps[1])")
        :format(helper.build_dir .. "/lib/lua/5.1/?.so", text))))
    assert.are.equal(0, code, err)
    assert.are.equal("2\t1\t1\n", out)
  end)

  it("runs the generator, the memory model and GPUMech's core under LuaJIT", function()
    -- the machine crosses into C from a configuration table; LuaJIT gets the
    -- one gpush.config resolves here, written out as a Lua literal
    local cfg = require("gpush.config").load("gtx1080", { "sm.count=2", "l2.size_kb=64" })
    local function literal(v)
      if type(v) ~= "table" then
        return type(v) == "string" and ("%q"):format(v) or ("%.17g"):format(v)
      end
      local parts = {}
      for key, value in pairs(v) do
        if type(key) == "string" and key:sub(1, 1) ~= "_" then
          parts[#parts + 1] = ("[%q] = %s"):format(key, type(value) == "boolean" and tostring(value)
            or literal(value))
        end
      end
      return "{" .. table.concat(parts, ", ") .. "}"
    end
    local code = [[
      local core = require("gpush.core")
      local k = assert(core.synth { name = "s", grid = 4, block = 128, trips = 3,
        streams = { { kind = "coalesced" } },
        body = { { class = "ld_global", width = 4, stream = 1 }, { class = "fp32", dep = 1 } } })
      local r = assert(core.memsim_functional(k, core.machine(CFG), 2))
      local pcs = { latency = { r.pcs[1].amat, 4, 4 }, l1_miss_reqs = { 1, 0, 0 }, dram_reqs = { 0.5, 0, 0 } }
      local p = core.gpumech_profile(k, 0, pcs)
      local m = p:predict { warps = 4, issue_rate = 1, policy = "gto", mshrs = 4 }
      print(("%.17g\t%.17g\t%.17g"):format(r.pcs[1].amat, p:summary().total_cycles, m.cycles))
    ]]
    code = code:gsub("CFG", function() return literal(cfg) end)
    local rc, out, err = helper.run(("luajit -e %s"):format(helper.shell_quote(
      ("package.cpath=%q; "):format(helper.build_dir .. "/lib/lua/5.1/?.so") .. code)))
    assert.are.equal(0, rc, err)
    -- the LuaJIT build computes what the Lua 5.4 build computes
    local amat, total, cycles = out:match("^(%S+)\t(%S+)\t(%S+)\n$")
    assert.is_not_nil(amat, out)
    local lua54 = require("gpush.core")
    local k = assert(lua54.synth { name = "s", grid = 4, block = 128, trips = 3,
      streams = { { kind = "coalesced" } },
      body = { { class = "ld_global", width = 4, stream = 1 }, { class = "fp32", dep = 1 } } })
    local r = assert(lua54.memsim_functional(k, lua54.machine(cfg), 2))
    assert.are.equal(r.pcs[1].amat, tonumber(amat)) -- same numbers in both builds
    local pcs = { latency = { r.pcs[1].amat, 4, 4 }, l1_miss_reqs = { 1, 0, 0 }, dram_reqs = { 0.5, 0, 0 } }
    local p = lua54.gpumech_profile(k, 0, pcs)
    assert.are.equal(p:summary().total_cycles, tonumber(total))
    assert.are.equal(p:predict { warps = 4, issue_rate = 1, policy = "gto", mshrs = 4 }.cycles,
      tonumber(cycles))
  end)
end)

