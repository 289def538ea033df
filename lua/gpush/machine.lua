-- gpush.machine: the configuration as the C core sees it, and the opcode
-- classes' facts, both from C (csrc/core/machine.h) so no Lua module spells
-- them again.
--
--   local m = machine.of(cfg)          -- the gp_machine userdata every C entry takes
--   machine.unit_of(cfg).imad          --> "fma": the scheduler unit a class issues to
--   machine.PIPELINE.barrier           --> "other": the ops.<pipeline> a class takes
--   machine.CLASSES[i].load            -- per class: name, pipeline, memory, cache,
--                                      -- load, store, shared, atomic
--
-- machine.of walks the C machine's fields (core.machine_fields: each names
-- its schema parameter) over a checked configuration: a parameter's default
-- lives only in the schema.
local core = require "gpush.core"
local config = require "gpush.config"

local M = {}

-- Every opcode class in the C core's order, with what it is.
M.CLASSES = core.op_class_info()

-- class name -> the compute pipeline (ops.<name>) whose latency and
-- interval it takes; memory classes and constant loads have none.
M.PIPELINE = {}
-- class name -> its facts (an entry of M.CLASSES)
M.CLASS = {}
for _, c in ipairs(M.CLASSES) do
  M.PIPELINE[c.name] = c.pipeline
  M.CLASS[c.name] = c
end

-- cfg -> { token = config.check_token(cfg), machine = its machine } (weak
-- keys): GPUMech and the bounds ask for the machine on every launch.
local built = setmetatable({}, { __mode = "k" })

-- The machine of a configuration (checked first, as every model's entry
-- does; `level` as error's).  The machine is read-only and reads only the
-- checked parameters, so the one built is reused while the check finds the
-- configuration unchanged.
function M.of(cfg, level)
  config.check(cfg, (level or 1) + 1)
  local token, memo = config.check_token(cfg), built[cfg]
  if memo and memo.token == token then
    return memo.machine
  end
  local machine = core.machine(cfg)
  built[cfg] = { token = token, machine = machine }
  return machine
end

-- class name -> the scheduler unit it issues to on this configuration
-- ("int", "fma", "fp64", "sfu", "tensor", "uniform", "other", "lsu").
function M.unit_of(cfg)
  return M.of(cfg, 2):units()
end

return M
