/* libFuzzer target: the measured-cycles CSV `gpush correlate` reads
 * (gpush.correlate.measured, gpush.csv underneath).  Any input is read or
 * refused with a message naming the file (and, for a row, its line within
 * the input); a row read has positive finite cycles and names a trace or a
 * kernel.  Kernel rows naming a microbenchmark or a suite kernel are then
 * resolved (gpush.correlate.kernels: parameters and geometry checked,
 * nothing generated; traces and .lua files are not opened here), and the
 * outputs of a correlation over the rows (predictions 10 % above the
 * measurements) are written as CSV, JSON and Markdown and read back.  The
 * Lua is driven by lua_harness.h. */
#define DRIVER                                                                          \
  "local measured = require 'gpush.correlate.measured'\n"                                \
  "local kernels = require 'gpush.correlate.kernels'\n"                                  \
  "local metrics = require 'gpush.correlate.metrics'\n"                                  \
  "local report = require 'gpush.report.correlate'\n"                                    \
  "local csv = require 'gpush.csv'\n"                                             \
  "local json = require 'gpush.json'\n"                                                  \
  "return function(bytes)\n"                                                             \
  "  local set, err = measured.parse(bytes, 'fuzz.csv')\n"                                \
  "  if not set then\n"                                                                  \
  "    assert(type(err) == 'string', 'refused without a message')\n"                     \
  "    assert(err:sub(1, 8) == 'fuzz.csv', 'the message does not name the file: ' .. err)\n" \
  "    local line = tonumber(err:match('^fuzz%.csv:(%d+):'))\n"                           \
  "    local _, breaks = bytes:gsub('[\\r\\n]', '')  -- the codec ends a line at LF, CR LF or CR\n" \
  "    assert(not line or (line >= 1 and line <= breaks + 1), 'line out of the input: ' .. err)\n" \
  "    return\n"                                                                         \
  "  end\n"                                                                              \
  "  set.dir = '/nonexistent-fuzz-dir'\n"                                                \
  "  local rows, pairs_list = {}, {}\n"                                                  \
  "  for i, row in ipairs(set.rows) do\n"                                                \
  "    assert(row.cycles > 0 and row.cycles < math.huge, 'cycles not positive and finite')\n" \
  "    assert((row.trace ~= nil) ~= (row.kernel ~= nil), 'not exactly one of trace and kernel')\n" \
  "    if row.kernel and not row.kernel:match('%.lua$') then\n"                         \
  "      local src, src_err = kernels.source(row, set)\n"                                \
  "      assert(src or (type(src_err) == 'string' and src_err:find('fuzz.csv:', 1, true)),\n" \
  "        'a kernel row neither resolved nor refused with FILE:LINE: ' .. tostring(src_err))\n" \
  "    end\n"                                                                            \
  "    local p = row.cycles * 1.1\n"                                                     \
  "    rows[i] = { set = 'measured', file = set.file, line = row.line, row = row, what = 'fuzzed',\n" \
  "      name = 'k', predicted = { m = p }, predicted_error = { m = metrics.error(row.cycles, p) }, failed = {} }\n" \
  "    pairs_list[i] = { row.cycles, p }\n"                                              \
  "  end\n"                                                                              \
  "  local result = { models = { 'm' }, measured = set, rows = rows, overrides = {}, config = 'c',\n" \
  "    config_name = 'c', summary = { m = metrics.summary(pairs_list) } }\n"            \
  "  assert(csv.parse(report.csv(result, { gpush = 'fuzz' })), 'the CSV written does not parse')\n" \
  "  assert(json.decode(report.json(result, {})), 'the JSON written does not decode')\n" \
  "  report.markdown(result, {})\n"                                                      \
  "end\n"
#include "lua_harness.h"
