-- gpush.cache: the user's cache folder for gpush, where what is expensive
-- to make and cheap to keep lives between runs (the ML corpus, parsed
-- traces): $XDG_CACHE_HOME/gpush, else ~/.cache/gpush, never the install
-- tree.
--
--   local dir, err = cache.dir("traces")   -- .../gpush/traces, made on demand
local core = require "gpush.core"

local M = {}

-- The folder (with `sub`, a subfolder of it), made when missing; or nil and
-- a message saying what to set.
function M.dir(sub)
  local base = os.getenv("XDG_CACHE_HOME")
  if not base or base == "" then
    local home = os.getenv("HOME")
    if not home or home == "" then
      return nil, "neither XDG_CACHE_HOME nor HOME is set"
    end
    base = home .. "/.cache"
  end
  local dirs = { base, base .. "/gpush" }
  if sub then
    dirs[3] = dirs[2] .. "/" .. sub
  end
  for _, dir in ipairs(dirs) do
    local ok, err = core.mkdir(dir)
    if not ok then
      return nil, err
    end
  end
  return dirs[#dirs]
end

return M
