-- The hardware kit with nvcc (tagged "nvcc": ctest runs it as its own test,
-- busted --tags=nvcc; pending with a message where no nvcc is found):
--   - every tools/hwkit/*.cu compiles on its own (nvcc -arch=sm_90 -c FILE,
--     the headers beside it);
--   - every description's registers and shared memory are what ptxas gives
--     its kernel (the occupancy gpush computes is the GPU's);
--   - the measured work is in the PTX: each description's kernel holds, in
--     its loop (or its body, without one), the PTX instructions of the
--     measured operation a trip of the description has (128 dependent
--     fma.rn.f32 for an FFMA chain, ...).  ptxas turns these into SASS on
--     the GPU's side of the kit: tools/hwkit/sass_check.lua checks the SASS
--     of a run.
local gpush = require "gpush"
local helper = require "spec_helper"

local function find_nvcc()
  local env = os.getenv("NVCC")
  if env and env ~= "" then
    return env
  end
  local p = io.popen("command -v nvcc || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc)")
  local path = p:read("l")
  p:close()
  return path ~= "" and path or nil
end

local nvcc = find_nvcc()
local q = helper.shell_quote

-- The kit's sources.
local function sources()
  local list = {}
  local p = io.popen("cd tools/hwkit && ls *.cu")
  for line in p:lines() do
    list[#list + 1] = line
  end
  p:close()
  return list
end

-- "void stream<(Kind)0, false>(int, ...)" -> "stream<(Kind)0, false>": the
-- name up to its argument list (the first '(' outside the template's <>).
local function kernel_name(demangled)
  local text = demangled:gsub("^void ", "")
  local depth = 0
  for i = 1, #text do
    local c = text:sub(i, i)
    if c == "<" then
      depth = depth + 1
    elseif c == ">" then
      depth = depth - 1
    elseif c == "(" and depth == 0 then
      return text:sub(1, i - 1)
    end
  end
  return text
end

local function demangle(names)
  local path = helper.write_temp(table.concat(names, "\n") .. "\n")
  local p = io.popen("c++filt < " .. q(path))
  local out = {}
  for line in p:lines() do
    out[#out + 1] = line
  end
  p:close()
  os.remove(path)
  return out
end

-- ptxas's report (-Xptxas -v) as {[demangled name] = {regs=, smem=}}.
local function resources(report)
  local names, info, current = {}, {}, nil
  for line in report:gmatch("[^\n]+") do
    local name = line:match("Compiling entry function '([^']+)'")
    if name then
      current = name
      names[#names + 1] = name
      info[name] = { regs = 0, smem = 0 }
    elseif current then
      local regs = line:match("Used (%d+) registers")
      if regs then
        info[current].regs = tonumber(regs)
        info[current].smem = tonumber(line:match("(%d+) bytes smem") or "0")
      end
    end
  end
  local out, plain = {}, demangle(names)
  for i, name in ipairs(names) do
    out[kernel_name(plain[i])] = info[name]
  end
  return out
end

-- A PTX file's entries as {[demangled name] = {lines...}} (instructions,
-- trimmed, predicates dropped; labels kept as "LABEL:").
local function ptx_entries(text)
  local names, bodies, current = {}, {}, nil
  for line in text:gmatch("[^\n]+") do
    local name = line:match("^%.visible%s+%.entry%s+([%w_]+)%(") or line:match("^%.entry%s+([%w_]+)%(")
    if name then
      current = { }
      names[#names + 1] = name
      bodies[name] = current
    elseif current and line:match("^}") then
      current = nil
    elseif current then
      local t = line:gsub("^%s+", ""):gsub("^@!?%%[%w_]+%s+", "")
      if t ~= "" and not t:match("^//") then
        current[#current + 1] = t
      end
    end
  end
  local out, plain = {}, demangle(names)
  for i, name in ipairs(names) do
    out[kernel_name(plain[i])] = bodies[name]
  end
  return out
end

-- Instructions matching `pattern` in the entry's longest loop (a label and
-- a later branch back to it), or in the whole entry when it has none.
local function count_in_loop(lines, pattern)
  local at, best = {}, nil
  for i, l in ipairs(lines) do
    local label = l:match("^(%$[%w_]+):")
    if label then
      at[label] = i
    end
    local target = l:match("^bra[%.%w]*%s+(%$[%w_]+);")
    if target and at[target] and (not best or i - at[target] > best[2] - best[1]) then
      best = { at[target], i }
    end
  end
  local first, last = 1, #lines
  if best then
    first, last = best[1], best[2]
  end
  local n = 0
  for i = first, last do
    n = n + (lines[i]:match(pattern) and 1 or 0)
  end
  return n, best ~= nil
end

local function descriptions()
  local list = {}
  local p = io.popen("ls tools/hwkit/kernels/*.lua")
  for line in p:lines() do
    if not line:match("/common%.lua$") then
      list[#list + 1] = assert(gpush.workloads.load_file(line))
    end
  end
  p:close()
  return list
end

describe("hwkit with nvcc #nvcc", function()
  if not nvcc then
    it("needs nvcc", function()
      pending("skipped: no nvcc (set NVCC, put nvcc on PATH or install CUDA in /usr/local/cuda)")
    end)
    return
  end

  local tmp = helper.temp_dir()
  local reports, ptx = {}, {}
  setup(function()
    for _, src in ipairs(sources()) do
      local base = src:gsub("%.cu$", "")
      local code, out, err = helper.run(("cd tools/hwkit && %s -arch=sm_90 -Xptxas -v -c %s -o %s"):format(
        q(nvcc), src, q(tmp .. "/" .. base .. ".o")))
      reports[base] = { code = code, text = out .. err }
      local pcode, _, perr = helper.run(("cd tools/hwkit && %s -arch=sm_90 -ptx %s -o %s"):format(
        q(nvcc), src, q(tmp .. "/" .. base .. ".ptx")))
      assert(pcode == 0, perr)
      ptx[base] = ptx_entries(helper.read_file(tmp .. "/" .. base .. ".ptx"))
    end
  end)
  teardown(function()
    os.execute("rm -rf " .. q(tmp))
  end)

  it("compiles every source on its own with nvcc -arch=sm_90 -c", function()
    local list = sources()
    assert.is_true(#list >= 8)
    for _, src in ipairs(list) do
      local r = reports[src:gsub("%.cu$", "")]
      assert.equal(0, r.code, src .. ":\n" .. r.text)
    end
  end)

  it("gives every description its kernel's registers and shared memory (ptxas)", function()
    for _, d in ipairs(descriptions()) do
      local base = d.hwkit.source:gsub("%.cu$", "")
      local info = resources(reports[base].text)[d.hwkit.kernel]
      assert(info, d.name .. ": no kernel " .. d.hwkit.kernel .. " in " .. d.hwkit.source)
      assert.equal(info.regs, d.regs, d.name .. ": registers")
      assert.equal(info.smem + (d.hwkit.dynamic_shmem or 0), d.shmem, d.name .. ": shared memory")
    end
  end)

  it("finds each description's measured operations a trip in its kernel's PTX", function()
    for _, d in ipairs(descriptions()) do
      local base = d.hwkit.source:gsub("%.cu$", "")
      local lines = assert(ptx[base][d.hwkit.kernel], d.name .. ": no PTX entry " .. d.hwkit.kernel)
      local n, looped = count_in_loop(lines, d.hwkit.ptx[1])
      assert.equal(d.hwkit.ptx[2], n, d.name .. ": " .. d.hwkit.ptx[1])
      -- a description ending in the loop's branch describes a kernel with a loop
      assert.equal(d.body[#d.body][1] == "branch", looped, d.name .. ": the kernel's loop")
    end
  end)

  it("keeps an FFMA chain dependent in the PTX: each fma reads the previous one's result", function()
    local lines = ptx.chains["chain<FfmaOp, false>"]
    local previous, chained, fmas = nil, 0, 0
    for _, l in ipairs(lines) do
      local dst, src = l:match("^fma%.rn%.f32%s+(%%f%d+),%s*(%%f%d+),")
      if dst then
        fmas = fmas + 1
        chained = chained + ((previous == nil or src == previous) and 1 or 0)
        previous = dst
      end
    end
    assert.equal(128, fmas)
    assert.equal(128, chained)
  end)
end)
