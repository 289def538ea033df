-- gpush.staging: outputs written under a temporary name in the folder they
-- belong to and moved into place only once complete, so a failed or
-- interrupted command never leaves a partial file behind, and never replaces
-- its own input.
--
--   assert(staging.write("out.csv", text))              -- one file, all at once
--   assert(staging.write("m.gsm", bytes, { inputs = { "data.csv" } }))  -- never over an input
--
--   local stage = assert(staging.file("out.gpt"))       -- stage.path: write here
--   ... write stage.path ...
--   assert(stage:commit())                              -- or stage:abort()
--
--   local stage = assert(staging.folder("results"))     -- stage.path: a fresh folder
--   assert(staging.write(stage.path .. "/a.csv", text)) -- checked write and close
--   assert(stage:commit())    -- each file moved into results/ (created if needed)
local core = require "gpush.core"

local M = {}

-- The folder part of a path ("." for a bare name) and the last component.
local function split(path)
  local trimmed = path:gsub("/+$", "")
  if trimmed == "" then
    return "/", ""
  end
  local dir, base = trimmed:match("^(.*)/([^/]*)$")
  if not dir then
    return ".", trimmed
  end
  return dir == "" and "/" or dir, base
end
M.split = split

-- The identity of an existing file or folder ("dev:ino"), or nil.
function M.identity(path)
  local st = core.stat(path)
  return st and (st.dev .. ":" .. st.ino)
end

-- True when both paths exist and name the same file (through links too).
function M.same(a, b)
  local ia = M.identity(a)
  return ia ~= nil and ia == M.identity(b)
end

-- Makes the folder an output file goes into when it is missing (one level,
-- as --out DIR is: `-o ml_out/m.gsm` works in a fresh checkout); true, or nil
-- and a message.
local function ensure_folder(dir)
  if core.stat(dir) then
    return true
  end
  return core.mkdir(dir)
end

-- Writes `text` to `path` through the core's staged writer (csrc/core/
-- staged.h: a temporary file beside `path`, flushed, synced, closed with the
-- result checked, renamed over `path`), so a full disk or any other write
-- failure leaves the previous file as it was.  opts.inputs: paths the
-- command reads; `path` naming one of them (compared by device and inode,
-- so links count) is refused.  Returns true, or nil and a message naming
-- the file.  opts.make_folder: make a missing folder of `path` (ensure_folder),
-- as an output option such as `-o ml_out/m.gsm` expects.
function M.write(path, text, opts)
  for _, input in ipairs(opts and opts.inputs or {}) do
    if M.same(input, path) then
      return nil, ("%s is the input %s: writing it would replace what the command reads; give another output file")
        :format(path, input)
    end
  end
  if opts and opts.make_folder then
    local made, mkdir_err = ensure_folder((split(path)))
    if not made then
      return nil, mkdir_err
    end
  end
  return core.write_file(path, text)
end

local Stage = {}
Stage.__index = Stage

-- A staged single file: stage.path is a new empty file beside `target`
-- (whose missing folder is made, ensure_folder).
function M.file(target)
  local dir, base = split(target)
  local made, mkdir_err = ensure_folder(dir)
  if not made then
    return nil, mkdir_err
  end
  local path, err = core.temp_file(dir .. "/." .. base .. ".tmp-")
  if not path then
    return nil, err
  end
  return setmetatable({ path = path, target = target }, Stage)
end

-- A staged folder: stage.path is a new empty folder beside `target`; commit
-- moves its files into `target` (created when missing), replacing files of
-- the same name and leaving others alone.
function M.folder(target)
  local dir, base = split(target)
  local path, err = core.temp_folder(dir .. "/." .. base .. ".tmp-")
  if not path then
    return nil, err
  end
  return setmetatable({ path = path, target = target, is_folder = true }, Stage)
end

-- Moves the staged output into place; true, or nil and a message (the
-- staged output is then removed).
function Stage:commit()
  if not self.is_folder then
    local ok, err = os.rename(self.path, self.target)
    if not ok then
      self:abort()
      return nil, ("%s: cannot move into place: %s"):format(self.target, err)
    end
    return true
  end
  local st = core.stat(self.target)
  if not st then
    local ok, err = os.rename(self.path, self.target)
    if not ok then
      self:abort()
      return nil, ("%s: cannot move into place: %s"):format(self.target, err)
    end
    return true
  end
  if st.kind ~= "folder" then
    self:abort()
    return nil, ("%s: exists and is not a folder"):format(self.target)
  end
  for _, name in ipairs(core.list_dir(self.path) or {}) do
    local ok, err = os.rename(self.path .. "/" .. name, self.target .. "/" .. name)
    if not ok then
      self:abort()
      return nil, ("%s/%s: cannot move into place: %s"):format(self.target, name, err)
    end
  end
  os.remove(self.path)
  return true
end

-- A message about the staged output as the user should read it: the
-- temporary name replaced by the target's.
function Stage:message(text)
  local out, from = {}, 1
  text = tostring(text)
  while true do
    local i, j = text:find(self.path, from, true)
    if not i then
      break
    end
    out[#out + 1] = text:sub(from, i - 1) .. self.target:gsub("/+$", "")
    from = j + 1
  end
  out[#out + 1] = text:sub(from)
  return table.concat(out)
end

-- Removes the staged output.
function Stage:abort()
  if self.is_folder then
    for _, name in ipairs(core.list_dir(self.path) or {}) do
      os.remove(self.path .. "/" .. name)
    end
  end
  os.remove(self.path)
end

return M
