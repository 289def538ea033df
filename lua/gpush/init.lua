-- gpush: the entry point for scripts.
--
--   local gpush = require "gpush"
--   local cfg = gpush.config.load("gtx660ti", { ["sm.max_warps"] = 48 })
--
-- Submodules (gpush.config, gpush.trace, ...) load on first use, so a script
-- pays only for what it touches.
local core = require "gpush.core"

local M = {}

M.version = core.version()
M.core = core

setmetatable(M, {
  __index = function(t, name)
    local ok, module = pcall(require, "gpush." .. name)
    if not ok then
      error(("gpush has no module '%s' (%s)"):format(name, module), 2)
    end
    rawset(t, name, module)
    return module
  end,
})

return M
