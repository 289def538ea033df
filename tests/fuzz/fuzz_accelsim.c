/* libFuzzer target: `gpush config import-accelsim` on arbitrary bytes.  The
 * input is a gpgpusim.config, optionally followed by a line "%%trace.config"
 * and a trace.config.  Every input is imported or refused with a message
 * naming the file; what the importer returns always loads as a gpush
 * configuration.  The Lua is driven by lua_harness.h. */
#define DRIVER                                                                          \
  "local accelsim = require 'gpush.accelsim'\n"                                          \
  "local config = require 'gpush.config'\n"                                              \
  "local dir = assert(require('gpush.core').temp_folder('/tmp/gpush-fuzz-accelsim-'))\n"  \
  "local function write(name, text)\n"                                                   \
  "  local f = assert(io.open(dir .. '/' .. name, 'wb'))\n"                              \
  "  f:write(text)\n"                                                                    \
  "  f:close()\n"                                                                        \
  "end\n"                                                                                \
  "return function(bytes)\n"                                                             \
  "  local main, traced = bytes:match('^(.-)\\n%%%%trace%.config\\n(.*)$')\n"             \
  "  write('gpgpusim.config', main or bytes)\n"                                          \
  "  os.remove(dir .. '/trace.config')\n"                                                \
  "  if traced then write('trace.config', traced) end\n"                                 \
  "  local text, report = accelsim.import(dir, 'fuzz')\n"                                \
  "  if not text then\n"                                                                 \
  "    assert(type(report) == 'string', 'refused without a message')\n"                  \
  "    assert(report:find(dir, 1, true), 'the message does not name the file: ' .. report)\n" \
  "    return\n"                                                                         \
  "  end\n"                                                                              \
  "  write('imported.yaml', text)\n"                                                     \
  "  local cfg, err = config.load(dir .. '/imported.yaml')\n"                             \
  "  assert(cfg, 'the imported configuration does not load: ' .. tostring(err))\n"       \
  "end\n"
#include "lua_harness.h"
