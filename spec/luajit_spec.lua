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
        .. "local i = k:info(); print(i.warp_instructions, i.class_mix.fp32, k:warp(0)[2].dep)")
        :format(helper.build_dir .. "/lib/lua/5.1/?.so", text))))
    assert.are.equal(0, code, err)
    assert.are.equal("2\t1\t1\n", out)
  end)
end)
