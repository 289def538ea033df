-- gpush.cli.parse_args: the option parser every subcommand shares.
local cli = require "gpush.cli"

describe("gpush.cli.parse_args", function()
  local options = { ["--json"] = "json", ["--kernel"] = "=kernel", ["-p"] = "+overrides" }

  it("sorts flags, values, lists and words", function()
    local opts = assert(cli.parse_args({ "a", "--json", "-p", "x=1", "--kernel", "2-3", "-py=2", "b" }, options))
    assert.are.same({ "a", "b" }, opts.words)
    assert.is_true(opts.json)
    assert.are.equal("2-3", opts.kernel)
    assert.are.same({ "x=1", "y=2" }, opts.overrides)
    assert.are.same({}, assert(cli.parse_args({}, options)).overrides)
  end)

  it("names the option that is wrong", function()
    local opts, err = cli.parse_args({ "--kernel" }, options)
    assert.is_nil(opts)
    assert.are.equal("--kernel needs a value", err)
    opts, err = cli.parse_args({ "--frob" }, options)
    assert.is_nil(opts)
    assert.are.equal("unknown option '--frob'", err)
    assert.are.same({ "-" }, assert(cli.parse_args({ "-" }, options)).words) -- stdin-style word
  end)
end)
