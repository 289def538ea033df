/* libFuzzer target: `gpush merge` on two partials, end to end.  The input
 * is two shard files joined by a line "%%"; each is read with
 * results.from_json, then experiment.merge joins them and
 * experiment.write_outputs writes the merged run (CSV, JSON, Markdown and
 * the sweep's reports, the SVG plots) into a scratch folder, as the command
 * does.  When the input's first byte is odd, the second partial takes the
 * first one's identity: a forged identity, which the merge must see through
 * by checking the partials against each other (sweep_merge.lua), and which
 * lets the mutations reach the row checks and the reports.
 *
 * The contract: every step returns its result or a message (a partial's
 * message names its file); a write that fails says why in words, never with
 * a Lua error position (a report that raised on data the merge let through);
 * no staging folder is left behind.  Seeds: tests/fuzz/corpus/merge/ (two
 * shards of a small sweep with the SVG report).  Driven by lua_harness.h. */
#define DRIVER                                                                                      \
  "local results = require 'gpush.results'\n"                                                        \
  "local experiment = require 'gpush.experiment'\n"                                                  \
  "local core = require 'gpush.core'\n"                                                              \
  "local parent = os.getenv('TMPDIR') or '/tmp'\n"                                                 \
  "local dir = assert(core.temp_folder(parent .. '/gpush-fuzz-merge-'))\n"                          \
  "local stage_prefix = '.' .. dir:match('[^/]+$') .. '.tmp-'\n"                                     \
  "local function refused(err, name)\n"                                                              \
  "  assert(type(err) == 'string', 'neither a result nor a message')\n"                              \
  "  assert(err:find(name, 1, true), 'the message does not name the file: ' .. err)\n"              \
  "end\n"                                                                                            \
  "return function(bytes)\n"                                                                         \
  "  local a_text, b_text = bytes:match('^(.-)\\n%%%%\\n(.*)$')\n"                                   \
  "  if not a_text then return end\n"                                                                \
  "  local a, a_err = results.from_json(a_text, 'a.json')\n"                                         \
  "  local b, b_err = results.from_json(b_text, 'b.json')\n"                                         \
  "  if not a then return refused(a_err, 'a.json') end\n"                                            \
  "  if not b then return refused(b_err, 'b.json') end\n"                                            \
  "  if bytes:byte(1) % 2 == 1 then b.extra.identity = a.extra.identity end\n"                       \
  "  local merged, merge_err = experiment.merge({ a, b }, { 'a.json', 'b.json' }, 'gpush merge')\n"  \
  "  if not merged then\n"                                                                           \
  "    assert(type(merge_err) == 'string', 'merge refused without a message')\n"                     \
  "    return\n"                                                                                     \
  "  end\n"                                                                                          \
  "  local written, write_err = experiment.write_outputs(merged, dir)\n"                             \
  "  if not written then\n"                                                                          \
  "    assert(type(write_err) == 'string', 'a write failed without a message')\n"                    \
  "    assert(not write_err:find('%.lua:%d+:'), 'writing the merged run raised: ' .. write_err)\n"   \
  "  end\n"                                                                                          \
  "  for _, name in ipairs(core.list_dir(dir) or {}) do\n"                                            \
  "    assert(not name:find('%.tmp%-'), 'a staging file was left behind: ' .. name)\n"               \
  "  end\n"                                                                                          \
  "  for _, name in ipairs(core.list_dir(parent) or {}) do\n"                                         \
  "    assert(name:sub(1, #stage_prefix) ~= stage_prefix, 'a staging folder was left behind: ' .. name)\n" \
  "  end\n"                                                                                          \
  "end\n"
#include "lua_harness.h"
