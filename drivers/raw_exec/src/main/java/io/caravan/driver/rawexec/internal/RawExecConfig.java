package io.caravan.driver.rawexec.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The agent's {@code plugin "raw_exec" { config { … } }}, which it writes as the named factory configuration
 * {@code io.caravan.driver.raw_exec~raw_exec} with dotted keys ({@code config.enabled}).
 */
@ObjectClassDefinition(name = "Caravan raw_exec driver",
        description = "Runs commands on the host without isolation. Disabled unless enabled.")
@interface RawExecConfig {
    @AttributeDefinition(name = "Enabled", description = "Nomad's config { enabled = true }: raw_exec runs tasks "
            + "with the agent's privileges, so it is off unless an operator turns it on.")
    boolean config_enabled() default false;
}
