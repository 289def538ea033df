-- Example: a script and its arguments, as `gpush SCRIPT args...` runs it.
--
--   gpush examples/script_args.lua a b
--
-- A script sees its arguments as lua.c gives them: arg[0] is the script,
-- arg[1], arg[2], ... the words after it (also as `...`); `gpush` is one
-- require away, its modules load on first use.
local gpush = require "gpush"

print(("gpush %s running %s with %d argument%s"):format(gpush.version, arg[0], #arg, #arg == 1 and "" or "s"))
for i = 1, #arg do
  print(("arg[%d] = %q"):format(i, arg[i]))
end
