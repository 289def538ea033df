-- Compares the hardware kit's descriptions with the SASS of a run.
--
--   gpush tools/hwkit/sass_check.lua SASS.txt [--kernels DIR]
--
-- SASS.txt is the sass.txt a run of tools/hwkit/run.sh writes (cuobjdump
-- -sass and -res-usage of the programs that ran).  For every description
-- file of DIR (default: tools/hwkit/kernels beside this script) it finds the
-- CUDA kernel the description names (its `hwkit` field), takes the kernel's
-- loop (or, for a kernel without one, the path up to its first EXIT) and
-- prints, per instruction class, the count a trip in the description and in
-- the SASS, with the registers; "ok" when the measured class (FFMA for an
-- FFMA chain, LDG for a chase, ...) agrees, "exact" when every class does.
-- Exit status 1 when a measured class disagrees or a kernel is missing.
local here = (arg and arg[0] or ""):match("^(.*[/\\])") or "./"
local sass = dofile(here .. "sass.lua")
local workloads = require "gpush.workloads"

local usage = "usage: gpush tools/hwkit/sass_check.lua SASS.txt [--kernels DIR]\n"
local path, dir
local i = 1
while arg[i] do
  if arg[i] == "--kernels" and arg[i + 1] then
    dir, i = arg[i + 1], i + 2
  elseif arg[i] == "--help" or arg[i] == "-h" then
    io.stdout:write(usage)
    os.exit(0)
  elseif not path and not arg[i]:match("^%-") then
    path, i = arg[i], i + 1
  else
    io.stderr:write("sass_check: unexpected argument '", arg[i], "'\n", usage)
    os.exit(2)
  end
end
if not path then
  io.stderr:write(usage)
  os.exit(2)
end
dir = dir or (here .. "kernels")

local f, err = io.open(path, "rb")
if not f then
  io.stderr:write("sass_check: ", err, "\n")
  os.exit(2)
end
local programs = sass.parse(f:read("a"))
f:close()

local files = {}
local p = io.popen('ls "' .. dir .. '"/*.lua 2>/dev/null')
for line in p:lines() do
  if not line:match("/common%.lua$") then
    files[#files + 1] = line
  end
end
p:close()
if #files == 0 then
  io.stderr:write("sass_check: no description files in ", dir, "\n")
  os.exit(2)
end

local failures = 0
print(("%-20s %-6s %-5s %s"):format("description", "check", "regs", "per trip, class: description / SASS"))
for _, file in ipairs(files) do
  local desc, load_err = workloads.load_file(file)
  if not desc then
    io.stderr:write("sass_check: ", load_err, "\n")
    os.exit(2)
  end
  local h = desc.hwkit or {}
  local prog = (h.source or ""):gsub("%.cu$", "")
  local fn, message = sass.find(programs, prog, h.kernel or "?")
  if not fn then
    print(("%-20s %-6s %-5s %s"):format(desc.name, "MISSING", "", message))
    failures = failures + 1
  else
    local r = sass.compare(desc, sass.shape(fn))
    local parts = {}
    for _, row in ipairs(r.rows) do
      parts[#parts + 1] = ("%s %d/%d%s"):format(row.class, row.description, row.sass,
        row.description == row.sass and "" or " *")
    end
    local verdict = r.exact and "exact" or r.ok and "ok" or "FAIL"
    local regs = r.regs and (r.regs_ok and tostring(r.regs) or ("%d!=%d"):format(desc.regs, r.regs)) or "?"
    print(("%-20s %-6s %-5s %s%s"):format(desc.name, verdict, regs, table.concat(parts, ", "),
      r.loop and "" or " (no loop: the path to the first EXIT)"))
    if not r.ok then
      failures = failures + 1
    end
  end
end
if failures > 0 then
  print(("%d description(s) disagree with the SASS in their measured class or are missing"):format(failures))
  os.exit(1)
end
print("every description's measured class agrees with the SASS (* marks the other classes that differ)")
