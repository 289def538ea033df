/* libFuzzer target: the readers `gpush merge` feeds a sweep's partial
 * results through: results.from_json (json.decode underneath) and
 * results.from_csv (gpush.csv underneath), then experiment.merge and the
 * writers of the merged table.  Any input must be read or refused with a
 * message naming the file (merge's refusals are about the set of partials:
 * a message); nothing raises, and what was read always writes back.  The Lua is driven by lua_harness.h. */
#define DRIVER                                                                          \
  "local results = require 'gpush.results'\n"                                            \
  "local experiment = require 'gpush.experiment'\n"                                      \
  "local function refused(value, err, name)\n"                                           \
  "  assert(value == nil and type(err) == 'string', 'neither a result nor a message')\n" \
  "  assert(err:find(name, 1, true), 'the message does not name the file: ' .. err)\n"   \
  "end\n"                                                                                \
  "return function(bytes)\n"                                                             \
  "  local r, err = results.from_json(bytes, 'fuzz.json')\n"                              \
  "  if r then\n"                                                                        \
  "    r:to_csv(); r:to_json(); r:to_markdown()\n"                                      \
  "    local merged, merge_err = experiment.merge({ r }, { 'fuzz.json' }, 'gpush merge fuzz.json')\n" \
  "    if merged then\n"                                                                 \
  "      merged:to_csv(); merged:to_json(); require('gpush.report.summary').file(merged)\n"          \
  "    else\n"                                                                           \
  "      assert(type(merge_err) == 'string', 'merge refused without a message')\n"       \
  "    end\n"                                                                            \
  "  else\n"                                                                             \
  "    refused(r, err, 'fuzz.json')\n"                                                   \
  "  end\n"                                                                              \
  "  local c, csv_err = results.from_csv(bytes, 'fuzz.csv')\n"                            \
  "  if c then\n"                                                                        \
  "    c:to_csv(); c:to_json(); c:to_markdown()\n"                                      \
  "  else\n"                                                                             \
  "    refused(c, csv_err, 'fuzz.csv')\n"                                                \
  "  end\n"                                                                              \
  "end\n"
#include "lua_harness.h"
