-- gpush: GPU and multicore performance modeling.
-- Install offline with:  luarocks --lua-version=5.4 make rocks/gpush-scm-1.rockspec
-- No rock dependencies: everything else comes from Debian (see README.md).
rockspec_format = "3.0"
package = "gpush"
version = "scm-1"

source = {
  url = "git+https://example.invalid/gpush.git",
}

description = {
  summary = "GPU and multicore performance-modeling shell (GPUMech, abstract simulation, ML scaling, mechanistic models)",
  detailed = [[
gpush predicts GPU kernel performance from Accel-Sim traces or synthetic kernels
with interval analysis (GPUMech), abstract timing simulation (GATSim-style),
machine-learned scaling surfaces and mechanistic multicore models. The
performance-critical parts are C, composed from Lua 5.4 scenario scripts.
]],
  license = "MIT",
  labels = { "gpu", "performance-modeling", "simulation" },
}

-- `lua` is the interpreter constraint, not a rock: nothing is fetched.
dependencies = {
  "lua >= 5.4, < 5.5",
}

external_dependencies = {
  YAML = { header = "yaml.h", library = "yaml" },
  ZLIB = { header = "zlib.h", library = "z" },
  LZMA = { header = "lzma.h", library = "lzma" },
}

build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "Release",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LUADIR = "$(LUADIR)",
    LIBDIR = "$(LIBDIR)",
    BINDIR = "$(BINDIR)",
    YAML_INCDIR = "$(YAML_INCDIR)",
    YAML_LIBDIR = "$(YAML_LIBDIR)",
    GPUSH_TESTS = "OFF",
    -- The rock serves Lua 5.4; the LuaJIT build comes with `cmake --install`.
    GPUSH_LUAJIT = "OFF",
  },
}

-- A busted rock cannot be fetched offline, so the specs run through Debian's
-- busted (which the repository's .busted points at lua5.4).
test = {
  type = "command",
  command = "busted --exclude-tags=install",
}
