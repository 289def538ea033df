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
end)
