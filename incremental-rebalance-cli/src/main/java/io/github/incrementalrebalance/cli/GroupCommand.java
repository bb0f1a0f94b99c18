package io.github.incrementalrebalance.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every command has: where the group is, and how to print.
 */
abstract class GroupCommand {

	@Spec
	CommandSpec spec;

	@Mixin
	ConnectionOptions connection;

	@Mixin
	Output output;

}
