package io.caravan.driver.java.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The agent's {@code plugin "java" { config { … } }} (factory configuration {@code io.caravan.driver.java~java}). */
@ObjectClassDefinition(name = "Caravan java driver",
        description = "Runs jars and classes with the host's java, chrooted into the task directory, in their own "
                + "namespaces and cgroups.")
@interface JavaConfig {
    @AttributeDefinition(name = "Chroot environment", description = "Host directories mounted read-only into "
            + "every task's chroot (Nomad's default chroot_env); the JDK's directory is added when none of them "
            + "holds it; symbolic links are copied as links.")
    String[] config_chroot_env() default {"/bin", "/etc", "/lib", "/lib32", "/lib64", "/run/resolvconf", "/sbin",
        "/usr"};

    @AttributeDefinition(name = "Cgroup parent", description = "Parent of the tasks' cgroups in each v1 hierarchy.")
    String config_cgroup_parent() default "caravan";

    @AttributeDefinition(name = "Default user", description = "Who a task runs as when it sets no user.")
    String config_default_user() default "nobody";
}
