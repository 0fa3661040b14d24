package io.caravan.client.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The typed part of PID {@code io.caravan.client} (Nomad's {@code client} block; dotted keys as the agent writes
 * them). Free-form maps ({@code meta.*}, {@code options.*}) and {@code reserved.*} are read from the raw
 * properties by {@link ClientSettings}.
 */
@ObjectClassDefinition(name = "Caravan client", description = "The client (data plane) of the agent")
@interface ClientConfig {
    @AttributeDefinition(description = "Client state directory; default <data_dir>/client")
    String state_dir() default "";

    @AttributeDefinition(description = "Allocation directories; default <data_dir>/alloc")
    String alloc_dir() default "";

    String node_class() default "";

    String node_pool() default "default";

    String network_interface() default "";

    int min_dynamic_port() default ClientSettings.DEFAULT_MIN_DYNAMIC_PORT;

    int max_dynamic_port() default ClientSettings.DEFAULT_MAX_DYNAMIC_PORT;

    @AttributeDefinition(description = "Upper bound of any task's kill_timeout (Go duration)")
    String max_kill_timeout() default "30s";

    String[] servers() default {};
}
