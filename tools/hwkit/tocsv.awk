# tocsv.awk -- the hardware kit's raw records to the measured CSV of
# `gpush correlate` (docs/hwkit.md, "The measured CSV").
#
#   awk -v kernels=PREFIX [-v mem_mhz=MHZ] [-v device=NAME] -f tools/hwkit/tocsv.awk RAW... > measured.csv
#
# A raw record is a line `row<TAB>key=value<TAB>...` (tools/hwkit/hwkit.h);
# lines starting with '#' and blank lines are skipped, anything else is
# reported (file:line) and skipped.  Each record becomes one CSV row:
#   kernel    `kernel=NAME` as it is (a kernel gpush ships: empty, ffma_chain,
#             a suite kernel), or `desc=NAME` as PREFIX/NAME.lua (a
#             description file of tools/hwkit/kernels; PREFIX is that folder
#             relative to the CSV's folder)
#   iters, grid, block, label   as recorded (iters is ffma_chain's column)
#   cycles    event_us x core_mhz, rounded: the median time of one launch
#             between two CUDA events, in cycles of the SM clock measured
#             during the case
#   core_mhz  as recorded; mem_mhz: the record's, else -v mem_mhz
# then every other key, as a column of its own, in the order first seen; a
# record without it leaves the cell empty.  A record missing kernel/desc,
# grid, block, event_us or core_mhz (or with a value that is not a positive
# number) is reported and left out; the exit status is then 1.  Fields are
# quoted as gpush's CSV codec (gpush.csv) quotes them.
BEGIN {
  FS = "\t"
  if (kernels == "")
    kernels = "."
  nfixed = split("kernel iters grid block cycles core_mhz mem_mhz label", fixed, " ")
  for (i = 1; i <= nfixed; i++)
    is_fixed[fixed[i]] = 1
  is_fixed["desc"] = 1
  norder = 0
  nrows = 0
  bad = 0
}

function complain(msg) {
  printf "hwkit tocsv: %s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
}

function positive(v) {
  return v ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && v + 0 > 0
}

function quote(v) {
  if (v ~ /[,"\r\n]/ || v ~ /^[ \t]/ || v ~ /[ \t]$/ || substr(v, 1, 1) == "#") {
    gsub(/"/, "\"\"", v)
    return "\"" v "\""
  }
  return v
}

/^[ \t]*$/ || /^#/ { next }

$1 != "row" {
  complain("not a raw record (expected 'row' and tab-separated key=value fields); skipped")
  bad++
  next
}

{
  delete rec
  for (i = 2; i <= NF; i++) {
    eq = index($i, "=")
    if (eq < 2) {
      complain("field '" $i "' is not key=value; record skipped")
      bad++
      next
    }
    rec[substr($i, 1, eq - 1)] = substr($i, eq + 1)
  }
  if (("kernel" in rec) == ("desc" in rec)) {
    complain("a record names its kernel by kernel= or desc=, exactly one of them; record skipped")
    bad++
    next
  }
  split("grid block event_us core_mhz", need, " ")
  for (i = 1; i <= 4; i++)
    if (!(need[i] in rec) || !positive(rec[need[i]])) {
      complain(need[i] " is missing or not a positive number; record skipped")
      bad++
      next
    }
  nrows++
  row_kernel[nrows] = ("desc" in rec) ? kernels "/" rec["desc"] ".lua" : rec["kernel"]
  row_cycles[nrows] = sprintf("%.0f", rec["event_us"] * rec["core_mhz"])
  if (!("mem_mhz" in rec) && mem_mhz != "")
    rec["mem_mhz"] = mem_mhz
  for (key in rec)
    cell[nrows, key] = rec[key]
  # the extra columns in the order their keys first appear in the records
  for (i = 2; i <= NF; i++) {
    key = substr($i, 1, index($i, "=") - 1)
    if (!(key in is_fixed) && !(key in placed)) {
      placed[key] = 1
      order[++norder] = key
    }
  }
}

END {
  printf "# gpush hardware kit (tools/hwkit): measured cycles for gpush correlate%s\n", device != "" ? ", " device : ""
  printf "# cycles = event_us x core_mhz: the median time of one launch between two CUDA events, in cycles of the SM clock measured during the case (mhz_source); docs/hwkit.md\n"
  line = ""
  for (i = 1; i <= nfixed; i++)
    line = line (i > 1 ? "," : "") fixed[i]
  for (i = 1; i <= norder; i++)
    line = line "," quote(order[i])
  print line
  for (r = 1; r <= nrows; r++) {
    line = quote(row_kernel[r])
    for (i = 2; i <= nfixed; i++) {
      key = fixed[i]
      value = key == "cycles" ? row_cycles[r] : ((r, key) in cell ? cell[r, key] : "")
      line = line "," quote(value)
    }
    for (i = 1; i <= norder; i++)
      line = line "," ((r, order[i]) in cell ? quote(cell[r, order[i]]) : "")
    print line
  }
  if (bad > 0) {
    printf "hwkit tocsv: %d record(s) left out (above); %d written\n", bad, nrows > "/dev/stderr"
    exit 1
  }
}
