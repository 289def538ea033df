-- Installing gpush: `luarocks --lua-version=5.4 make` into a temporary tree
-- (offline, no rock dependencies) and `cmake --install` into a temporary
-- prefix; the installed gpush must find its modules and presets.  Tagged
-- "install": ctest runs it as its own test (busted --tags=install).
local helper = require "spec_helper"
local q = helper.shell_quote

local function must(command)
  local code, out, err = helper.run(command)
  assert(code == 0, ("command failed (%s): %s\n%s\n%s"):format(tostring(code), command, out, err))
  return out
end

describe("gpush installation #install", function()
  local work

  setup(function()
    work = helper.temp_dir()
  end)

  teardown(function()
    os.execute("rm -rf " .. q(work))
  end)

  it("installs with luarocks make into a tree and runs from there", function()
    -- A copy of the sources as a user would have them (tracked and new files).
    must(("mkdir -p %s/src && git ls-files -z --cached --others --exclude-standard "
      .. "| xargs -0 cp --parents -t %s/src"):format(q(work), q(work)))
    must(("cd %s/src && luarocks --lua-version=5.4 make rocks/gpush-scm-1.rockspec --tree %s/tree")
      :format(q(work), q(work)))
    local gpush = work .. "/tree/bin/gpush"
    local version = must(q(gpush) .. " --version")
    assert.matches("modules: " .. (work .. "/tree/bin/../share/lua/5.4"):gsub("%p", "%%%0"), version)
    local script = helper.write_temp("print(require('gpush.config').load('gtx660ti').gpu.name)\n", ".lua")
    local out = must(q(gpush) .. " " .. q(script))
    assert.matches("660", out, 1, true)
    os.remove(script)
    -- The scenarios and examples come along: `gpush scenarios` lists them
    -- from anywhere, and one runs from the tree.
    out = must(("cd / && %s scenarios"):format(q(gpush)))
    assert.matches("kepler_sweep%s+Kepler design sweep", out)
    local installed = work .. "/tree/share/lua/5.4/gpush/scenarios"
    assert.matches("(in " .. installed .. ";", out, 1, true)
    -- `gpush run NAME` finds an installed scenario from anywhere
    out = must(("cd / && %s run kepler_sweep --help"):format(q(gpush)))
    assert.matches("usage: gpush " .. installed .. "/kepler_sweep.lua ", out, 1, true)
    out = must(("cd %s && %s %s/../examples/new_workload.lua"):format(q(work), q(gpush), q(installed)))
    assert.is_true(#out > 0)
    -- Plain lua5.4 loads the installed C module from the tree.
    out = must(("LUA_CPATH=%s/tree/lib/lua/5.4/?.so lua5.4 -e %s"):format(q(work),
      q("print(require('gpush.core').version())")))
    assert.are.equal(require("gpush.core").version() .. "\n", out)
  end)

  it("installs with cmake --install, LuaJIT module included", function()
    must(("cmake --install %s --prefix %s/prefix >/dev/null"):format(q(helper.build_dir), q(work)))
    local gpush = work .. "/prefix/bin/gpush"
    local version = must(q(gpush) .. " --version")
    assert.matches("modules: " .. (work .. "/prefix/bin/../share/lua/5.4"):gsub("%p", "%%%0"), version)
    local out = must(q(gpush) .. " -e " .. q("print(require('gpush.config').load('gtx480').sm.count)"))
    assert.matches("^%d+\n$", out)
    out = must(("cd / && %s scenarios"):format(q(gpush)))
    assert.matches("(in " .. work .. "/prefix/share/lua/5.4/gpush/scenarios;", out, 1, true)
    out = must(("luajit -e %s"):format(q(("package.cpath=%q; print(require('gpush.core').version())")
      :format(work .. "/prefix/lib/lua/5.1/?.so"))))
    assert.are.equal(require("gpush.core").version() .. "\n", out)
  end)
end)
