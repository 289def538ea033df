-- The layering rules of DESIGN.md ("Layers and rooms"), enforced over every
-- `require` under lua/gpush/ and every `#include` under csrc/:
--   1. a module under gpush.models never requires gpush.experiment,
--      gpush.report.*, gpush.cmd.* or gpush.cli;
--   2. a report (gpush.report.*) never requires gpush.experiment, nor
--      gpush.config or gpush.trace: reports read results (the engine hands
--      them what they need), they never reload a configuration or a trace;
--   3. no require cycle among gpush's modules (lazy requires inside
--      functions count: they close a circle all the same);
--   4. no file of the core (csrc/core/) includes lua.h, lauxlib.h or lualib.h;
--   5. a family folder of the core (csrc/core/gpumech/, sim/, surface/, ...:
--      every subfolder but num/) never includes another family's files;
--   6. num/ never reaches a trace header (trace.h, directly or through
--      another header);
--   7. no circle of calls between C files (csrc/core/ and csrc/lua/): file
--      A depends on file B when A calls a function B defines (not static);
--      the scheduler and the event loop, the binding's helpers and its
--      types each call one way;
--   8. the opcode-class map is C's (gpush.machine): no Lua module spells a
--      class-to-unit or class-to-pipeline table of its own.
-- num/ and the flat substrate are shared: any family may include them.  The
-- checker works on an in-memory file set {path = text}, so the spec first
-- plants each violation in a small example and sees it reported.

-- Comments out: long comments, then line comments outside strings.
local function lua_code(text)
  text = text:gsub("%-%-%[(=*)%[.-%]%1%]", "")
  local lines = {}
  for line in (text .. "\n"):gmatch("(.-)\n") do
    local quote, i, cut = nil, 1, #line + 1
    while i <= #line do
      local c = line:sub(i, i)
      if quote then
        if c == "\\" then
          i = i + 1
        elseif c == quote then
          quote = nil
        end
      elseif c == '"' or c == "'" then
        quote = c
      elseif line:sub(i, i + 1) == "--" then
        cut = i
        break
      end
      i = i + 1
    end
    lines[#lines + 1] = line:sub(1, cut - 1)
  end
  return table.concat(lines, "\n")
end

-- The module names a Lua text requires with a literal name.
local function requires_of(text)
  local list = {}
  for name in lua_code(text):gmatch("require%s*%(?%s*[\"']([%w_%.]+)[\"']") do
    list[#list + 1] = name
  end
  return list
end

-- lua/gpush/a/b.lua -> gpush.a.b; lua/gpush/a/init.lua -> gpush.a.
local function module_of(path)
  local name = path:match("^lua/(.+)%.lua$")
  return name and name:gsub("/init$", ""):gsub("/", ".")
end

local function under(name, prefix)
  return name == prefix or name:sub(1, #prefix + 1) == prefix .. "."
end

-- Rules 1-3 over {path = text} of Lua modules; returns the violations.
local function check_lua(files)
  local problems, graph, names = {}, {}, {}
  for path, text in pairs(files) do
    local module = module_of(path)
    if module then
      graph[module] = requires_of(text)
      names[#names + 1] = module
    end
  end
  table.sort(names)
  for _, module in ipairs(names) do
    for _, required in ipairs(graph[module]) do
      if under(module, "gpush.models") then
        for _, banned in ipairs { "gpush.experiment", "gpush.report", "gpush.cmd", "gpush.cli" } do
          if under(required, banned) then
            problems[#problems + 1] = ("model module %s requires %s"):format(module, required)
          end
        end
      end
      for _, banned in ipairs { "gpush.experiment", "gpush.config", "gpush.trace" } do
        if under(module, "gpush.report") and under(required, banned) then
          problems[#problems + 1] = ("report %s requires %s"):format(module, required)
        end
      end
    end
  end
  -- cycles: a depth-first walk; a module met again while on the path closes one
  local state, path = {}, {}
  local function visit(module)
    state[module] = "open"
    path[#path + 1] = module
    for _, required in ipairs(graph[module]) do
      if graph[required] then
        if state[required] == "open" then
          local from = 1
          while path[from] ~= required do
            from = from + 1
          end
          problems[#problems + 1] = "require cycle: " .. table.concat(path, " -> ", from) .. " -> " .. required
        elseif not state[required] then
          visit(required)
        end
      end
    end
    path[#path] = nil
    state[module] = "done"
  end
  for _, module in ipairs(names) do
    if not state[module] then
      visit(module)
    end
  end
  return problems
end

local function dir_of(path)
  return path:match("^(.*)/[^/]*$") or "."
end

-- Where a quoted include of `file` resolves among `files`: beside the file
-- first, then csrc/core/ (the core's include path), then csrc/lua/.
local function resolve(files, file, name)
  for _, candidate in ipairs { dir_of(file) .. "/" .. name, "csrc/core/" .. name, "csrc/lua/" .. name } do
    if files[candidate] then
      return candidate
    end
  end
end

-- The core folder a path is in: "gpumech", "num", ... or "" for the flat
-- substrate; nil outside csrc/core/.
local function core_folder(path)
  local rest = path:match("^csrc/core/(.+)$")
  return rest and (rest:match("^([^/]+)/") or "")
end

-- Rules 4-6 over {path = text} of C files; returns the violations.
local function check_c(files)
  local problems, includes, paths = {}, {}, {}
  for path, text in pairs(files) do
    if path:match("%.[ch]$") then
      paths[#paths + 1] = path
      includes[path] = {}
      for kind, name in ("\n" .. text):gmatch("\n[ \t]*#[ \t]*include[ \t]*([\"<])([^\">\n]+)[\">]") do
        includes[path][#includes[path] + 1] = { system = kind == "<", name = name }
      end
    end
  end
  table.sort(paths)
  local function reaches_trace(path, seen)
    if path == "csrc/core/trace.h" then
      return true
    end
    if seen[path] then
      return false
    end
    seen[path] = true
    for _, inc in ipairs(includes[path] or {}) do
      local target = not inc.system and resolve(files, path, inc.name)
      if target and reaches_trace(target, seen) then
        return true
      end
    end
    return false
  end
  for _, path in ipairs(paths) do
    local folder = core_folder(path)
    if folder then
      for _, inc in ipairs(includes[path]) do
        local base = inc.name:match("[^/]+$")
        if base == "lua.h" or base == "lauxlib.h" or base == "lualib.h" then
          problems[#problems + 1] = ("core file %s includes %s"):format(path, inc.name)
        end
        local target = not inc.system and resolve(files, path, inc.name)
        local target_folder = target and core_folder(target)
        if folder ~= "" and folder ~= "num" and target_folder and target_folder ~= "" and target_folder ~= "num"
          and target_folder ~= folder then
          problems[#problems + 1] = ("family folder %s/: %s includes %s (family %s/)"):format(folder, path, inc.name,
            target_folder)
        end
        if folder == "num" and target and reaches_trace(target, {}) then
          problems[#problems + 1] = ("num/ file %s reaches a trace header through %s"):format(path, inc.name)
        end
      end
    end
  end
  return problems
end

-- C text without comments and string or character literals.
local function c_code(text)
  text = text:gsub("/%*.-%*/", " ")
  text = text:gsub("//[^\n]*", "")
  text = text:gsub('"[^"\n]-[^\\]"', '""'):gsub("'[^'\n]-'", "''")
  return text
end

-- The functions a C text defines at file scope (not static): a name at the
-- start of a line's declaration whose parameter list is followed by a body.
local function c_definitions(code)
  local names = {}
  for head, name, rest in ("\n" .. code):gmatch("\n([%a_][%w_ %*]-)([%a_][%w_]*)%s*(%b()%s*{)") do
    if not head:match("^static") and not head:match("^typedef") and not head:match("^return") then
      names[#names + 1] = name
    end
    local _ = rest
  end
  return names
end

-- Rule 7 over {path = text} of C files: the circles of calls between them.
local function check_calls(files)
  local defined_in, calls, paths = {}, {}, {}
  for path, text in pairs(files) do
    if path:match("%.c$") then
      paths[#paths + 1] = path
      local code = c_code(text)
      for _, name in ipairs(c_definitions(code)) do
        defined_in[name] = path
      end
      calls[path] = {}
      for name in code:gmatch("([%a_][%w_]*)%s*%(") do
        calls[path][name] = true
      end
    end
  end
  table.sort(paths)
  local graph = {}
  for _, path in ipairs(paths) do
    local seen, edges = {}, {}
    for name in pairs(calls[path]) do
      local target = defined_in[name]
      if target and target ~= path and not seen[target] then
        seen[target] = true
        edges[#edges + 1] = target
      end
    end
    table.sort(edges)
    graph[path] = edges
  end
  local problems, state, stack = {}, {}, {}
  local function visit(path)
    state[path] = "open"
    stack[#stack + 1] = path
    for _, target in ipairs(graph[path]) do
      if state[target] == "open" then
        local from = 1
        while stack[from] ~= target do
          from = from + 1
        end
        problems[#problems + 1] = "call cycle: " .. table.concat(stack, " -> ", from) .. " -> " .. target
      elseif not state[target] then
        visit(target)
      end
    end
    stack[#stack] = nil
    state[path] = "done"
  end
  for _, path in ipairs(paths) do
    if not state[path] then
      visit(path)
    end
  end
  return problems
end

-- Rule 8 over {path = text} of Lua modules: a table that maps an opcode
-- class to a unit or a pipeline (`imad = "fma"`, `barrier = "other"`).
local function check_class_maps(files)
  local problems = {}
  for path, text in pairs(files) do
    local code = lua_code(text)
    for _, pattern in ipairs { 'imad%s*=%s*"fma"', 'fp32%s*=%s*"fma"', 'barrier%s*=%s*"other"' } do
      if code:match(pattern) then
        problems[#problems + 1] = ("%s spells an opcode-class map of its own (%s); read gpush.machine's")
          :format(path, code:match(pattern))
        break
      end
    end
  end
  table.sort(problems)
  return problems
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a")
  f:close()
  return text
end

-- Every file `find` lists under `dir` whose name matches `pattern`.
local function tree(dir, pattern)
  local files = {}
  local p = assert(io.popen(("find %s -type f -name '%s'"):format(dir, pattern)))
  for path in p:lines() do
    files[path] = read(path)
  end
  p:close()
  return files
end

describe("the layering checker", function()
  it("passes a clean example", function()
    assert.are.same({}, check_lua {
      ["lua/gpush/models/init.lua"] = 'local core = require "gpush.core"',
      ["lua/gpush/models/fam.lua"] = '-- require "gpush.cli" in a comment\n--[[ require "gpush.cmd.x" ]] local x = 1',
      ["lua/gpush/experiment.lua"] = 'local models = require("gpush.models")\nlocal r = require "gpush.report.x"',
      ["lua/gpush/report/x.lua"] = 'local models = require "gpush.models"',
    })
    assert.are.same({}, check_c {
      ["csrc/core/trace.h"] = '#include "gp_common.h"\n',
      ["csrc/core/gp_common.h"] = "#include <stdio.h>\n",
      ["csrc/core/fam/a.c"] = '#include "a.h"\n#include "num/k.h"\n#include "trace.h"\n',
      ["csrc/core/fam/a.h"] = "",
      ["csrc/core/num/k.h"] = '#include "gp_common.h"\n',
      ["csrc/lua/l_a.c"] = '#include "lua.h"\n#include "fam/a.h"\n#include "other/b.h"\n',
      ["csrc/core/other/b.h"] = "",
    })
  end)

  it("reports every rule on a planted violation", function()
    local function one(problems, expected)
      assert.are.equal(1, #problems, table.concat(problems, "\n"))
      assert.matches(expected, problems[1], 1, true)
    end
    one(check_lua { ["lua/gpush/models/fam.lua"] = 'local e = require "gpush.experiment"' },
      "model module gpush.models.fam requires gpush.experiment")
    one(check_lua { ["lua/gpush/models/init.lua"] = 'local function f() return require("gpush.report.svg") end' },
      "model module gpush.models requires gpush.report.svg")
    one(check_lua { ["lua/gpush/models/fam/init.lua"] = "local c = require 'gpush.cmd.sim'" },
      "model module gpush.models.fam requires gpush.cmd.sim")
    one(check_lua { ["lua/gpush/models/fam.lua"] = 'local cli = require "gpush.cli"' },
      "model module gpush.models.fam requires gpush.cli")
    one(check_lua { ["lua/gpush/report/x.lua"] = 'local e = require "gpush.experiment"' },
      "report gpush.report.x requires gpush.experiment")
    one(check_lua { ["lua/gpush/report/x.lua"] = 'local c = require "gpush.config"' },
      "report gpush.report.x requires gpush.config")
    one(check_lua {
      ["lua/gpush/a.lua"] = 'local b = require "gpush.b"',
      ["lua/gpush/b.lua"] = 'local function later() return require "gpush.c" end',
      ["lua/gpush/c.lua"] = 'local a = require "gpush.a"',
    }, "require cycle: gpush.a -> gpush.b -> gpush.c -> gpush.a")
    one(check_c { ["csrc/core/trace_x.c"] = '#include "lua.h"\n' }, "core file csrc/core/trace_x.c includes lua.h")
    one(check_c { ["csrc/core/fam/x.c"] = "#include <lauxlib.h>\n" }, "includes lauxlib.h")
    one(check_c {
      ["csrc/core/sim/x.c"] = '#include "gpumech/interval.h"\n',
      ["csrc/core/gpumech/interval.h"] = "",
    }, "family folder sim/: csrc/core/sim/x.c includes gpumech/interval.h (family gpumech/)")
    one(check_c {
      ["csrc/core/num/k.c"] = '#include "memsim.h"\n',
      ["csrc/core/memsim.h"] = '#include "trace.h"\n',
      ["csrc/core/trace.h"] = "",
    }, "num/ file csrc/core/num/k.c reaches a trace header through memsim.h")
    one(check_calls {
      ["csrc/core/sim/a.c"] = "/* b_run() in a comment */\nint a_issue(int x) {\n  return b_pick(x);\n}\n",
      ["csrc/core/sim/b.c"] = "static int helper(void) { return 0; }\nint b_pick(int x) {\n  return x;\n}\n"
        .. "int b_run(void) {\n  return a_issue(helper());\n}\n",
    }, "call cycle: csrc/core/sim/a.c -> csrc/core/sim/b.c -> csrc/core/sim/a.c")
    assert.are.same({}, check_calls {
      ["csrc/lua/l_core.c"] = "int luaopen_x(void) {\n  return gpl_open_a() + gpl_util();\n}\n",
      ["csrc/lua/l_a.c"] = "int gpl_open_a(void) {\n  return gpl_util();\n}\n",
      ["csrc/lua/l_util.c"] = "int gpl_util(void) {\n  return 1;\n}\n",
    })
    one(check_class_maps { ["lua/gpush/x.lua"] = 'local unit = { int = "int", imad = "fma" }' },
      "lua/gpush/x.lua spells an opcode-class map of its own")
    assert.are.same({}, check_class_maps { ["lua/gpush/x.lua"] = '-- imad = "fma" in a comment' })
  end)
end)

describe("gpush's layering", function()
  it("keeps models, reports and requires in their layers", function()
    local files = tree("lua/gpush", "*.lua")
    assert.is_not_nil(files["lua/gpush/models/init.lua"])
    assert.is_not_nil(files["lua/gpush/experiment.lua"])
    assert.are.same({}, check_lua(files))
  end)

  it("keeps the core free of Lua and each family folder to itself", function()
    local files = tree("csrc", "*.[ch]")
    assert.is_not_nil(files["csrc/core/gpumech/multiwarp.c"])
    assert.is_not_nil(files["csrc/core/sim/sim.c"])
    assert.is_not_nil(files["csrc/core/num/kmeans.h"])
    assert.are.same({}, check_c(files))
  end)

  it("has no circle of calls between C files", function()
    local files = tree("csrc", "*.c")
    assert.is_not_nil(files["csrc/core/sim/sched.c"])
    assert.are.same({}, check_calls(files))
  end)

  it("reads the opcode-class map from C, never from a table of its own", function()
    assert.are.same({}, check_class_maps(tree("lua/gpush", "*.lua")))
  end)
end)
