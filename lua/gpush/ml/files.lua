-- gpush.ml.files: every file the ML commands write goes through here:
-- written by gpush.staging.write (under a temporary name beside its target,
-- synced, checked on close and renamed into place), so an interrupted or failed
-- write never leaves a partial file under the real name.  And the
-- checkpoint folder of a long build (the corpus), whose pieces are written
-- the same way, so a resumed build trusts every piece it finds.
--
--   assert(files.write("out.csv", text))
--   local cp = assert(files.checkpoint("corpus.partial"))
--   if not cp:has("kernel-0001") then assert(cp:write("kernel-0001", text)) end
--   cp:clear()
local core = require "gpush.core"
local staging = require "gpush.staging"

local M = {}

-- Writes text to path through gpush's one staged writer (gpush.staging.write:
-- beside the target, synced, the close checked, renamed; a missing folder
-- made); true, or nil and a message naming the path.
function M.write(path, text)
  return staging.write(path, text, { make_folder = true })
end

-- The whole file, or nil and a message.
function M.read(path)
  local f, err = io.open(path, "rb")
  if not f then
    return nil, err
  end
  local text = f:read("a")
  f:close()
  if not text then
    return nil, path .. ": cannot read"
  end
  return text
end

local Checkpoint = {}
Checkpoint.__index = Checkpoint

-- A checkpoint folder (created when missing): named pieces, each a file
-- written whole or not at all.
function M.checkpoint(dir)
  local st = core.stat(dir)
  if st and st.kind ~= "folder" then
    return nil, ("%s: exists and is not a folder"):format(dir)
  end
  if not st then
    local ok, err = core.mkdir(dir)
    if not ok then
      return nil, err
    end
  end
  return setmetatable({ dir = dir }, Checkpoint)
end

function Checkpoint:path(name)
  return self.dir .. "/" .. name
end

function Checkpoint:has(name)
  return core.stat(self:path(name)) ~= nil
end

function Checkpoint:read(name)
  return M.read(self:path(name))
end

function Checkpoint:write(name, text)
  return M.write(self:path(name), text)
end

-- Removes one piece (a damaged one, before it is made again).
function Checkpoint:drop(name)
  os.remove(self:path(name))
end

-- Removes every piece, the staging leftovers of an interrupted write and
-- the folder.
function Checkpoint:clear()
  for _, name in ipairs(core.list_dir(self.dir) or {}) do
    os.remove(self.dir .. "/" .. name)
  end
  os.remove(self.dir)
end

return M
