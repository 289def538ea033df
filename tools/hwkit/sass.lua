-- tools/hwkit/sass.lua: the kit's SASS, read from `cuobjdump -sass` output,
-- against the gpush descriptions of the same kernels.
--
--   local sass = dofile("tools/hwkit/sass.lua")
--   local programs = sass.parse(text)        -- sass.txt of a run (run.sh)
--   local fn = sass.find(programs, "chains", demangled)  -- a kernel's function
--   local shape = sass.shape(fn)             -- its loop and the rest, by class
--   local report = sass.compare(desc, shape) -- the description against it
--
-- sass.txt holds, per program, a line "## hwkit-NAME", cuobjdump -sass's
-- listing ("Function : MANGLED", then "/*ADDR*/ [@P] OPCODE operands ;" lines
-- and ".L_x_N:" labels) and, after "## hwkit-NAME resource usage", cuobjdump
-- -res-usage's "Function MANGLED:" / "REG:N STACK:N SHARED:N ..." lines.
-- Opcodes are classed by the trace reader's own map (gpush.core.opcode_class),
-- so the classes are the ones gpush's models use for traces.
local core = require "gpush.core"

local M = {}

-- Programs by name ("chains"), each { functions = {MANGLED = fn}, order =
-- {MANGLED...} }; fn = { name, insts = {{addr, opcode, target}}, regs,
-- shared }.  A branch's target is an address (number) or a label.
function M.parse(text)
  local programs, program, fn, labels, section = {}, nil, nil, nil, nil
  local function new_program(name)
    program = programs[name] or { functions = {}, order = {} }
    programs[name] = program
    fn = nil
  end
  local function get_fn(name)
    local f = program.functions[name]
    if not f then
      f = { name = name, insts = {}, labels = {} }
      program.functions[name] = f
      program.order[#program.order + 1] = name
    end
    return f
  end
  local pending_labels = {}
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    local prog, what = line:match("^## hwkit%-([%w_]+)%s*(.*)$")
    if prog then
      new_program(prog)
      section = what == "resource usage" and "res" or "sass"
      pending_labels = {}
    elseif program and section == "sass" then
      local name = line:match("^%s*Function%s*:%s*(%S+)%s*$")
      if name then
        fn = get_fn(name)
        labels = fn.labels
        pending_labels = {}
      elseif fn then
        local label = line:match("^%s*(%.L[%w_]+):%s*$")
        local addr, rest = line:match("^%s*/%*(%x+)%*/%s*(.-)%s*;")
        if label then
          pending_labels[#pending_labels + 1] = label
        elseif addr then
          local body = rest:gsub("^@!?U?P[T%d]+%s+", "")
          local opcode, operands = body:match("^([%u%d_%.]+)%s*(.*)$")
          if opcode then
            local a = tonumber(addr, 16)
            for _, l in ipairs(pending_labels) do
              labels[l] = a
            end
            pending_labels = {}
            local target = operands:match("`%((%.L[%w_]+)%)") or tonumber(operands:match("^0x(%x+)") or "", 16)
            fn.insts[#fn.insts + 1] = { addr = a, opcode = opcode, target = target,
              predicated = rest:find("^@") ~= nil }
          end
        end
      end
    elseif program and section == "res" then
      local name = line:match("^%s*Function%s+([^%s:]+):")
      if name then
        fn = get_fn(name)
      elseif fn then
        local regs = line:match("REG:(%d+)")
        if regs then
          fn.regs = tonumber(regs)
          fn.shared = tonumber(line:match("SHARED:(%d+)") or "")
        end
      end
    end
  end
  return programs
end

-- Demangled names of the mangled ones, through c++filt (binutils).
function M.demangle(names)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  for _, n in ipairs(names) do
    f:write(n, "\n")
  end
  f:close()
  local p = io.popen("c++filt < " .. path)
  local out = {}
  if p then
    for line in p:lines() do
      out[#out + 1] = line
    end
    p:close()
  end
  os.remove(path)
  if #out ~= #names then
    return nil, "c++filt (binutils) is needed to read the kernels' names"
  end
  return out
end

-- The function of program `prog` whose demangled name is "void KERNEL(...)".
function M.find(programs, prog, kernel)
  local program = programs[prog]
  if not program then
    return nil, ("no program hwkit-%s in the SASS"):format(prog)
  end
  local names, message = M.demangle(program.order)
  if not names then
    return nil, message
  end
  local prefix = "void " .. kernel .. "("
  for i, d in ipairs(names) do
    if d:sub(1, #prefix) == prefix then
      return program.functions[program.order[i]]
    end
  end
  return nil, ("no function %s in hwkit-%s"):format(kernel, prog)
end

-- The classes of instructions i..j of fn, counted.
local function count(fn, i, j, into)
  into = into or {}
  for k = i, j do
    local class = core.opcode_class(fn.insts[k].opcode, 90)
    into[class] = (into[class] or 0) + 1
  end
  return into
end

-- The executed shape of a function: its longest loop (a backward branch:
-- the instructions from the target to the branch) counted by class, and the
-- instructions outside it up to the last EXIT (the self-branch and NOPs
-- after it never run).  A function with no loop: `loop` is nil and
-- `straight` counts the instructions up to and including the first EXIT
-- (the path of a kernel whose stores only a sentinel would take).
function M.shape(fn)
  local insts, index = fn.insts, {}
  for i, ins in ipairs(insts) do
    index[ins.addr] = i
  end
  local best
  for i, ins in ipairs(insts) do
    if ins.opcode:match("^BRA") and ins.target then
      local addr = type(ins.target) == "number" and ins.target or fn.labels[ins.target]
      local first = addr and index[addr]
      if first and first < i and (not best or i - first > best.last - best.first) then
        best = { first = first, last = i }
      end
    end
  end
  local last_exit, first_exit = 0, nil
  for i, ins in ipairs(insts) do
    if ins.opcode:match("^EXIT") then
      last_exit = i
      first_exit = first_exit or i
    end
  end
  local s = { insts = #insts }
  if best then
    s.loop = count(fn, best.first, best.last)
    s.loop_length = best.last - best.first + 1
    s.outside = count(fn, 1, best.first - 1)
    count(fn, best.last + 1, last_exit, s.outside)
  else
    s.straight = count(fn, 1, first_exit or #insts)
  end
  s.regs, s.shared = fn.regs, fn.shared
  return s
end

-- A description's body counted by class (its trips' worth is trips x this).
function M.body_counts(desc)
  local c = {}
  for _, op in ipairs(desc.body) do
    local class = op[1] or op.class
    c[class] = (c[class] or 0) + 1
  end
  return c
end

local function keys(a, b)
  local seen, out = {}, {}
  for _, t in ipairs { a, b } do
    for k in pairs(t) do
      if not seen[k] then
        seen[k] = true
        out[#out + 1] = k
      end
    end
  end
  table.sort(out)
  return out
end

-- The description against the SASS shape: per class, the description's
-- body and the SASS loop (or the straight path, the description's body plus
-- gpush's EXIT); `ok` when the measured class (desc.hwkit.class) has the same
-- count in both, `exact` when every class does.  `regs_ok`: the description's
-- registers are the function's (when the resource usage was recorded).
function M.compare(desc, shape)
  local mine = M.body_counts(desc)
  local theirs = shape.loop or shape.straight
  if not shape.loop then
    mine.branch = (mine.branch or 0) + 1 -- gpush's EXIT
  end
  local rows, exact = {}, true
  for _, class in ipairs(keys(mine, theirs)) do
    local a, b = mine[class] or 0, theirs[class] or 0
    rows[#rows + 1] = { class = class, description = a, sass = b }
    exact = exact and a == b
  end
  local measured = desc.hwkit and desc.hwkit.class
  local r = { rows = rows, exact = exact, measured = measured,
    ok = measured ~= nil and (mine[measured] or 0) == (theirs[measured] or 0) and (theirs[measured] or 0) > 0,
    loop = shape.loop ~= nil, outside = shape.outside }
  if shape.regs then
    r.regs = shape.regs
    r.regs_ok = shape.regs == desc.regs
  end
  return r
end

return M
