-- Where the gpush executable finds its Lua modules: the build tree and the
-- GPUSH_PATH override.  (Installed trees: spec/install_spec.lua.)
local helper = require "spec_helper"

local function realpath(path)
  local p = io.popen("realpath " .. helper.shell_quote(path))
  local out = p:read("l")
  p:close()
  return out
end

local function module_root(env)
  local code, out = helper.gpush_run({ "--version" }, env)
  assert.are.equal(0, code)
  return out:match("modules: (.-)%)\n$")
end

describe("gpush module search", function()
  it("finds the modules of the build tree next to the executable", function()
    local root = module_root()
    assert.are.equal(realpath("lua"), realpath(root))
    assert.are.equal(realpath(helper.build_dir) .. "/bin/../share/lua/5.4",
      realpath(helper.build_dir) .. root:match("/bin/%.%./share/lua/5%.4$"))
  end)

  it("prefers GPUSH_PATH, first entry first", function()
    local dir = helper.temp_dir()
    assert(os.execute("cp -r lua/gpush " .. dir .. "/gpush"))
    local marker = assert(io.open(dir .. "/gpush/path_marker.lua", "w"))
    marker:write("return 'from GPUSH_PATH'\n")
    marker:close()
    local env = { GPUSH_PATH = dir .. ";/nonexistent" }
    assert.are.equal(dir, module_root(env))
    local code, out = helper.gpush_run({ "-e", "print((require('gpush.path_marker')))" }, env)
    assert.are.equal(0, code)
    assert.are.equal("from GPUSH_PATH\n", out)
    os.execute("rm -rf " .. dir)
  end)

  it("says clearly when a copied executable has no modules beside it", function()
    local dir = helper.temp_dir()
    assert(os.execute("mkdir -p " .. dir .. "/bin && cp " .. helper.gpush .. " " .. dir .. "/bin/"))
    local code, out = helper.run(dir .. "/bin/gpush --version")
    assert.are.equal(0, code)
    assert.matches("modules: not found", out, 1, true)
    local err
    code, _, err = helper.run(dir .. "/bin/gpush -e 'require \"gpush\"'")
    assert.are.equal(1, code)
    assert.matches("module 'gpush' not found", err, 1, true)
    os.execute("rm -rf " .. dir)
  end)
end)
