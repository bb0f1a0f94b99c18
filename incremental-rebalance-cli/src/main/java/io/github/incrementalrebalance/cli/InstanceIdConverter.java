package io.github.incrementalrebalance.cli;

import io.github.incrementalrebalance.identity.MemberIdentity;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * An instance as the operator names it: its instance id, or the longer name it was made from (a pod's name), which
 * stands for the same id.
 */
final class InstanceIdConverter implements ITypeConverter<String> {

	@Override
	public String convert(String value) {
		try {
			return MemberIdentity.instanceIdOf(value);
		}
		catch (IllegalArgumentException ex) {
			throw new TypeConversionException(ex.getMessage());
		}
	}

}
