package io.caravan.jobspec.internal;

import static io.caravan.jobspec.internal.Schema.Kind.ANY;
import static io.caravan.jobspec.internal.Schema.Kind.BOOL;
import static io.caravan.jobspec.internal.Schema.Kind.DURATION;
import static io.caravan.jobspec.internal.Schema.Kind.INT;
import static io.caravan.jobspec.internal.Schema.Kind.STRING;
import static io.caravan.jobspec.internal.Schema.Kind.STRINGS;
import static io.caravan.jobspec.internal.Schema.Kind.STRINGS_MAP;
import static io.caravan.jobspec.internal.Schema.Kind.STRING_MAP;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.jobspec.internal.Schema.Card;
import io.caravan.jobspec.internal.Schema.Nested;
import java.util.List;
import java.util.Map;

/**
 * The jobspec: every block and attribute Nomad 1.5's HCL2 parser accepts (its {@code api.*} structs' {@code hcl}
 * tags), with the JSON key of the Go field. Read top-down like Nomad's job-specification docs.
 */
final class JobSchema {

    private JobSchema() {
    }

    // Why items are parsed but not acted on yet (the registration's Warnings name them; see Ignored).
    /** What the native provider ({@code provider = "nomad"}) registers: Consul's extras are not. */
    private static final String NATIVE_SERVICES = "Nomad's native service discovery does not register it (Consul only)";
    private static final String CONSUL = "there is no Consul integration";
    private static final String VAULT_NONE = "there is no Vault integration";
    private static final String MIGRATE_NONE = "drained allocations are migrated without a migrate strategy";
    private static final String NOT_READ = "not read";

    /** Temporary key holding job-level {@code task} blocks until {@link #JOB}'s post hook turns them into groups. */
    static final String LONE_TASKS = "\u0000tasks";
    /** Temporary key holding the job-level {@code vault} block until it is copied into the tasks. */
    static final String JOB_VAULT = "\u0000vault";
    /** The same for a group-level {@code vault} block (HCL1 inheritance, still accepted). */
    static final String GROUP_VAULT = "\u0000group-vault";

    /**
     * Constraint and affinity shorthands of Nomad's parser ({@code jobspec2/hcl_conversions.go}):
     * {@code version = ">= 1.2"} means operator {@code version} with that value, and so on; applied in this order.
     */
    private static final List<String> OPERATOR_SHORTHANDS = List.of(
            "version", "semver", "regexp", "set_contains_any", "set_contains_all", "set_contains");

    private static Schema placement(String name, boolean affinity) {
        Schema s = new Schema(name)
                .attr("attribute", "LTarget", STRING)
                .attr("value", "RTarget", STRING)
                .attr("operator", "Operand", STRING);
        if (affinity) {
            s.attr("weight", "Weight", INT);
        } else {
            s.attr("distinct_hosts", "\u0000distinct_hosts", BOOL);
            s.attr("distinct_property", "\u0000distinct_property", STRING);
        }
        OPERATOR_SHORTHANDS.forEach(k -> s.attr(k, "\u0000" + k, STRING));
        return s.post(JobSchema::expandShorthands);
    }

    private static void expandShorthands(ObjectNode c) {
        for (String operand : OPERATOR_SHORTHANDS) {
            JsonNode v = c.remove("\u0000" + operand);
            if (v != null && !v.asText().isEmpty()) {
                c.put("Operand", operand);
                c.set("RTarget", v);
            }
        }
        JsonNode hosts = c.remove("\u0000distinct_hosts");
        if (hosts != null && hosts.asBoolean()) {
            c.put("Operand", "distinct_hosts");
        }
        JsonNode property = c.remove("\u0000distinct_property");
        if (property != null && !property.asText().isEmpty()) {
            c.put("Operand", "distinct_property");
            c.set("LTarget", property);
        }
        if (c.path("Operand").asText().isEmpty()) {
            c.put("Operand", "="); // Nomad's parser writes the default operator
        }
    }

    static final Schema CONSTRAINT = placement("constraint", false);
    static final Schema AFFINITY = placement("affinity", true);

    static final Schema SPREAD = new Schema("spread")
            .attr("attribute", "Attribute", STRING)
            .attr("weight", "Weight", INT)
            .labelled("target", "SpreadTarget", "Value", new Schema("target").attr("percent", "Percent", INT));

    static final Schema UPDATE = new Schema("update")
            .attr("stagger", "Stagger", DURATION)
            .attr("max_parallel", "MaxParallel", INT)
            .attr("health_check", "HealthCheck", STRING)
            .attr("min_healthy_time", "MinHealthyTime", DURATION)
            .attr("healthy_deadline", "HealthyDeadline", DURATION)
            .attr("progress_deadline", "ProgressDeadline", DURATION)
            .attr("canary", "Canary", INT)
            .attr("auto_revert", "AutoRevert", BOOL)
            .attr("auto_promote", "AutoPromote", BOOL);

    static final Schema MIGRATE = new Schema("migrate")
            .attr("max_parallel", "MaxParallel", INT)
            .attr("health_check", "HealthCheck", STRING)
            .attr("min_healthy_time", "MinHealthyTime", DURATION)
            .attr("healthy_deadline", "HealthyDeadline", DURATION);

    static final Schema RESTART = new Schema("restart")
            .attr("attempts", "Attempts", INT)
            .attr("interval", "Interval", DURATION)
            .attr("delay", "Delay", DURATION)
            .attr("mode", "Mode", STRING)
            .attr("render_templates", "RenderTemplates", BOOL);

    static final Schema RESCHEDULE = new Schema("reschedule")
            .attr("attempts", "Attempts", INT)
            .attr("interval", "Interval", DURATION)
            .attr("delay", "Delay", DURATION)
            .attr("delay_function", "DelayFunction", STRING)
            .attr("max_delay", "MaxDelay", DURATION)
            .attr("unlimited", "Unlimited", BOOL);

    static final Schema DISCONNECT = new Schema("disconnect")
            .attr("lost_after", "LostAfter", DURATION)
            .attr("stop_on_client_after", "StopOnClientAfter", DURATION)
            .attr("replace", "Replace", BOOL)
            .attr("reconcile", "Reconcile", STRING);

    static final Schema EPHEMERAL_DISK = new Schema("ephemeral_disk")
            .attr("sticky", "Sticky", BOOL)
            .attr("migrate", "Migrate", BOOL)
            .attr("size", "SizeMB", INT)
            .unsupported("migrate", "ephemeral disks are not migrated between nodes");

    static final Schema PERIODIC = new Schema("periodic")
            .attr("cron", "Spec", STRING)
            .attr("crons", "Specs", STRINGS)
            .attr("prohibit_overlap", "ProhibitOverlap", BOOL)
            .attr("time_zone", "TimeZone", STRING)
            .attr("enabled", "Enabled", BOOL)
            // Nomad's parser sets the only spec type there is whenever a spec is given.
            .post(p -> {
                if (p.has("Spec")) {
                    p.put("SpecType", "cron");
                }
            });

    static final Schema PARAMETERIZED = new Schema("parameterized")
            .attr("payload", "Payload", STRING)
            .attr("meta_required", "MetaRequired", STRINGS)
            .attr("meta_optional", "MetaOptional", STRINGS);

    static final Schema VAULT = new Schema("vault")
            .attr("policies", "Policies", STRINGS)
            .attr("namespace", "Namespace", STRING)
            .attr("env", "Env", BOOL)
            .attr("change_mode", "ChangeMode", STRING)
            .attr("change_signal", "ChangeSignal", STRING)
            .attr("entity_alias", "EntityAlias", STRING);

    static final Schema MULTIREGION = new Schema("multiregion")
            .one("strategy", "Strategy", new Schema("strategy")
                    .attr("max_parallel", "MaxParallel", INT)
                    .attr("on_failure", "OnFailure", STRING))
            .labelled("region", "Regions", "Name", new Schema("region")
                    .attr("count", "Count", INT)
                    .attr("datacenters", "Datacenters", STRINGS)
                    .attr("node_pool", "NodePool", STRING)
                    .free("meta", "Meta", STRING_MAP));

    // ---- network ------------------------------------------------------------------------------------------------

    static final Schema PORT = new Schema("port")
            .attr("static", "Value", INT)
            .attr("to", "To", INT)
            .attr("host_network", "HostNetwork", STRING)
            // Go's api.Port has plain ints, so Nomad's parse output always carries Value and To; Go field order.
            .post(p -> {
                JsonNode label = p.remove("Label");
                JsonNode value = p.remove("Value");
                JsonNode to = p.remove("To");
                JsonNode hostNetwork = p.remove("HostNetwork");
                p.set("Label", label);
                p.put("Value", value == null ? 0 : value.asLong());
                p.put("To", to == null ? 0 : to.asLong());
                if (hostNetwork != null) {
                    p.set("HostNetwork", hostNetwork);
                }
            });

    static final Schema NETWORK = new Schema("network")
            .attr("mode", "Mode", STRING)
            .attr("mbits", "MBits", INT)
            .attr("hostname", "Hostname", STRING)
            .unsupported("mode", "tasks share the host's network: bridge and CNI networking are not implemented",
                    mode -> !mode.asText().equals("host"))
            .unsupported("hostname", "tasks share the host's network namespace and hostname")
            // Nomad splits the port blocks: a static port is reserved, any other is dynamic.
            .nested(new Nested(null, PORT, Card.LIST, "Label", "",
                    p -> p.path("Value").asLong() > 0 ? "ReservedPorts" : "DynamicPorts"), "port")
            .one("dns", "DNS", new Schema("dns")
                    .attr("servers", "Servers", STRINGS)
                    .attr("searches", "Searches", STRINGS)
                    .attr("options", "Options", STRINGS))
            .unsupported("dns", "tasks share the host's network namespace and resolver");

    static final Schema DEVICE = new Schema("device")
            .attr("count", "Count", INT)
            .list("constraint", "Constraints", CONSTRAINT)
            .list("affinity", "Affinities", AFFINITY);

    static final Schema RESOURCES = new Schema("resources")
            .attr("cpu", "CPU", INT)
            .attr("cores", "Cores", INT)
            .attr("memory", "MemoryMB", INT)
            .attr("memory_max", "MemoryMaxMB", INT)
            .attr("disk", "DiskMB", INT)
            .attr("iops", "IOPS", INT)
            .unsupported("iops", NOT_READ)
            .list("network", "Networks", NETWORK)
            .labelled("device", "Devices", "Name", DEVICE);

    // ---- services and Consul Connect ----------------------------------------------------------------------------

    static final Schema CHECK_RESTART = new Schema("check_restart")
            .attr("limit", "Limit", INT)
            .attr("grace", "Grace", DURATION)
            .attr("ignore_warnings", "IgnoreWarnings", BOOL);

    static final Schema CHECK = new Schema("check")
            .attr("name", "Name", STRING)
            .attr("type", "Type", STRING)
            .attr("command", "Command", STRING)
            .attr("args", "Args", STRINGS)
            .attr("path", "Path", STRING)
            .attr("protocol", "Protocol", STRING)
            .attr("port", "PortLabel", STRING)
            .attr("expose", "Expose", BOOL)
            .attr("address_mode", "AddressMode", STRING)
            .attr("interval", "Interval", DURATION)
            .attr("timeout", "Timeout", DURATION)
            .attr("initial_status", "InitialStatus", STRING)
            .attr("tls_skip_verify", "TLSSkipVerify", BOOL)
            .attr("method", "Method", STRING)
            .attr("body", "Body", STRING)
            .attr("task", "TaskName", STRING)
            .attr("grpc_service", "GRPCService", STRING)
            .attr("grpc_use_tls", "GRPCUseTLS", BOOL)
            .attr("success_before_passing", "SuccessBeforePassing", INT)
            .attr("failures_before_critical", "FailuresBeforeCritical", INT)
            .attr("on_update", "OnUpdate", STRING)
            .free("header", "Header", STRINGS_MAP)
            .one("check_restart", "CheckRestart", CHECK_RESTART)
            .unsupported("expose", "Consul Connect is not implemented")
            .unsupported("initial_status", NATIVE_SERVICES)
            .unsupported("grpc_service", "grpc checks are not run")
            .unsupported("grpc_use_tls", "grpc checks are not run")
            .unsupported("success_before_passing", NATIVE_SERVICES)
            .unsupported("failures_before_critical", NATIVE_SERVICES);

    static final Schema UPSTREAM = new Schema("upstreams")
            .attr("destination_name", "DestinationName", STRING)
            .attr("destination_namespace", "DestinationNamespace", STRING)
            .attr("local_bind_port", "LocalBindPort", INT)
            .attr("local_bind_address", "LocalBindAddress", STRING)
            .attr("datacenter", "Datacenter", STRING)
            .one("mesh_gateway", "MeshGateway", new Schema("mesh_gateway").attr("mode", "Mode", STRING))
            .free("config", "Config", ANY);

    static final Schema EXPOSE = new Schema("expose")
            .list("path", "Paths", new Schema("path")
                    .attr("path", "Path", STRING)
                    .attr("protocol", "Protocol", STRING)
                    .attr("local_path_port", "LocalPathPort", INT)
                    .attr("listener_port", "ListenerPort", STRING));

    static final Schema PROXY = new Schema("proxy")
            .attr("local_service_address", "LocalServiceAddress", STRING)
            .attr("local_service_port", "LocalServicePort", INT)
            .list("upstreams", "Upstreams", UPSTREAM)
            .one("expose", "Expose", EXPOSE)
            .free("config", "Config", ANY);

    static final Schema LOGS = new Schema("logs")
            .attr("max_files", "MaxFiles", INT)
            .attr("max_file_size", "MaxFileSizeMB", INT)
            .attr("disabled", "Disabled", BOOL);

    static final Schema SIDECAR_TASK = new Schema("sidecar_task")
            .attr("name", "Name", STRING)
            .attr("driver", "Driver", STRING)
            .attr("user", "User", STRING)
            .attr("kill_timeout", "KillTimeout", DURATION)
            .attr("kill_signal", "KillSignal", STRING)
            .attr("shutdown_delay", "ShutdownDelay", DURATION)
            .free("config", "Config", ANY)
            .free("env", "Env", STRING_MAP)
            .free("meta", "Meta", STRING_MAP)
            .one("resources", "Resources", RESOURCES)
            .one("logs", "LogConfig", LOGS);

    static final Schema GATEWAY = new Schema("gateway")
            .one("proxy", "Proxy", new Schema("proxy")
                    .attr("connect_timeout", "ConnectTimeout", DURATION)
                    .attr("envoy_gateway_bind_tagged_addresses", "EnvoyGatewayBindTaggedAddresses", BOOL)
                    .attr("envoy_gateway_no_default_bind", "EnvoyGatewayNoDefaultBind", BOOL)
                    .attr("envoy_dns_discovery_type", "EnvoyDNSDiscoveryType", STRING)
                    .map("envoy_gateway_bind_addresses", "EnvoyGatewayBindAddresses", null,
                            new Schema("envoy_gateway_bind_addresses")
                                    .attr("address", "Address", STRING)
                                    .attr("port", "Port", INT))
                    .free("config", "Config", ANY))
            .one("ingress", "Ingress", new Schema("ingress")
                    .one("tls", "TLS", new Schema("tls")
                            .attr("enabled", "Enabled", BOOL)
                            .attr("tls_min_version", "TLSMinVersion", STRING)
                            .attr("tls_max_version", "TLSMaxVersion", STRING)
                            .attr("cipher_suites", "CipherSuites", STRINGS))
                    .list("listener", "Listeners", new Schema("listener")
                            .attr("port", "Port", INT)
                            .attr("protocol", "Protocol", STRING)
                            .list("service", "Services", new Schema("service")
                                    .attr("name", "Name", STRING)
                                    .attr("hosts", "Hosts", STRINGS))))
            .one("terminating", "Terminating", new Schema("terminating")
                    .list("service", "Services", new Schema("service")
                            .attr("name", "Name", STRING)
                            .attr("ca_file", "CAFile", STRING)
                            .attr("cert_file", "CertFile", STRING)
                            .attr("key_file", "KeyFile", STRING)
                            .attr("sni", "SNI", STRING)))
            .one("mesh", "Mesh", new Schema("mesh"));

    static final Schema CONNECT = new Schema("connect")
            .attr("native", "Native", BOOL)
            .one("sidecar_service", "SidecarService", new Schema("sidecar_service")
                    .attr("tags", "Tags", STRINGS)
                    .attr("port", "Port", STRING)
                    .attr("disable_default_tcp_check", "DisableDefaultTCPCheck", BOOL)
                    .one("proxy", "Proxy", PROXY)
                    .free("meta", "Meta", STRING_MAP))
            .one("sidecar_task", "SidecarTask", SIDECAR_TASK)
            .one("gateway", "Gateway", GATEWAY);

    static final Schema SERVICE = new Schema("service")
            .attr("name", "Name", STRING)
            .attr("tags", "Tags", STRINGS)
            .attr("canary_tags", "CanaryTags", STRINGS)
            .attr("enable_tag_override", "EnableTagOverride", BOOL)
            .attr("port", "PortLabel", STRING)
            .attr("address_mode", "AddressMode", STRING)
            .attr("address", "Address", STRING)
            .attr("task", "TaskName", STRING)
            .attr("on_update", "OnUpdate", STRING)
            .attr("provider", "Provider", STRING)
            .list("check", "Checks", CHECK)
            .one("check_restart", "CheckRestart", CHECK_RESTART)
            .one("connect", "Connect", CONNECT)
            .free("meta", "Meta", STRING_MAP)
            .free("canary_meta", "CanaryMeta", STRING_MAP)
            .free("tagged_addresses", "TaggedAddresses", STRING_MAP)
            .unsupported("enable_tag_override", NATIVE_SERVICES)
            .unsupported("connect", "Consul Connect is not implemented")
            .unsupported("meta", NATIVE_SERVICES)
            .unsupported("canary_meta", NATIVE_SERVICES)
            .unsupported("tagged_addresses", NATIVE_SERVICES);

    // ---- task ---------------------------------------------------------------------------------------------------

    static final Schema ARTIFACT = new Schema("artifact")
            .attr("source", "GetterSource", STRING)
            .attr("destination", "RelativeDest", STRING)
            .attr("mode", "GetterMode", STRING)
            .attr("chown", "Chown", BOOL)
            .unsupported("chown", NOT_READ)
            .free("options", "GetterOptions", STRING_MAP)
            .free("headers", "GetterHeaders", STRING_MAP);

    static final Schema TEMPLATE = new Schema("template")
            .attr("source", "SourcePath", STRING)
            .attr("destination", "DestPath", STRING)
            .attr("data", "EmbeddedTmpl", STRING)
            .attr("change_mode", "ChangeMode", STRING)
            .attr("change_signal", "ChangeSignal", STRING)
            .attr("splay", "Splay", DURATION)
            .attr("perms", "Perms", STRING)
            .attr("uid", "Uid", INT)
            .attr("gid", "Gid", INT)
            .attr("left_delimiter", "LeftDelim", STRING)
            .attr("right_delimiter", "RightDelim", STRING)
            .attr("env", "Envvars", BOOL)
            .attr("vault_grace", "VaultGrace", DURATION)
            .unsupported("vault_grace", VAULT_NONE, v -> v.isNumber() && v.asLong() != 0)
            .attr("error_on_missing_key", "ErrMissingKey", BOOL)
            .attr("once", "Once", BOOL)
            .one("change_script", "ChangeScript", new Schema("change_script")
                    .attr("command", "Command", STRING)
                    .attr("args", "Args", STRINGS)
                    .attr("timeout", "Timeout", DURATION)
                    .attr("fail_on_error", "FailOnError", BOOL))
            .one("wait", "Wait", new Schema("wait")
                    .attr("min", "Min", DURATION)
                    .attr("max", "Max", DURATION))
            // Nomad's parser (normalizeTemplates) fills these in, so /v1/jobs/parse returns them.
            .post(t -> {
                putIfAbsent(t, "ChangeMode", "restart");
                putIfAbsent(t, "Perms", "0644");
                if (!t.has("Splay")) {
                    t.put("Splay", 5_000_000_000L);
                }
                if (!t.has("ErrMissingKey")) {
                    t.put("ErrMissingKey", false);
                }
                if (t.get("ChangeScript") instanceof ObjectNode cs) {
                    if (!cs.has("Args")) {
                        cs.putArray("Args");
                    }
                    if (!cs.has("Timeout")) {
                        cs.put("Timeout", 5_000_000_000L);
                    }
                    if (!cs.has("FailOnError")) {
                        cs.put("FailOnError", false);
                    }
                }
            });

    private static void putIfAbsent(ObjectNode node, String key, String value) {
        if (!node.has(key)) {
            node.put(key, value);
        }
    }

    private static Schema scaling() {
        return new Schema("scaling")
                .attr("min", "Min", INT)
                .attr("max", "Max", INT)
                .attr("enabled", "Enabled", BOOL)
                .attr("type", "Type", STRING)
                .free("policy", "Policy", ANY);
    }

    /** Group scaling is horizontal: Nomad's parser fills the type in and requires max. */
    static final Schema GROUP_SCALING = scaling()
            .unsupported("policy", "scaling policies are kept with the job but nothing serves or applies them")
            .required("max")
            .check((p, r) -> {
                if (p.has("Type") && !p.get("Type").asText().equals("horizontal")) {
                    r.error("type", "Invalid group scaling type",
                            "task group scaling policy had invalid type: \"" + p.get("Type").asText() + "\"");
                }
            })
            .post(p -> {
                if (!p.has("Type")) {
                    p.put("Type", "horizontal");
                }
            });

    /** Task scaling "cpu" / "mem": the label gives the type (vertical_cpu / vertical_mem); a written type must agree. */
    static final Schema TASK_SCALING = scaling()
            .attr("type", "\u0000type", STRING)
            .check((p, r) -> {
                JsonNode written = p.get("\u0000type");
                if (written != null && !written.asText().equals(p.path("Type").asText())) {
                    r.error("type", "Invalid scaling policy type", "Invalid policy type, expected \""
                            + written.asText() + "\" but found \"" + p.path("Type").asText() + "\"");
                }
            })
            .post(p -> p.remove("\u0000type"));

    /** A task's workload identity: the default one (no name) or an alternate one. */
    static final Schema IDENTITY = new Schema("identity")
            .attr("name", "Name", STRING)
            .attr("aud", "Audience", STRINGS)
            .attr("change_mode", "ChangeMode", STRING)
            .attr("change_signal", "ChangeSignal", STRING)
            .attr("env", "Env", BOOL)
            .attr("file", "File", BOOL)
            .attr("filepath", "Filepath", STRING)
            .attr("ttl", "TTL", DURATION)
            .free("extra_claims", "ExtraClaims", STRING_MAP)
            .unsupported("filepath", "identities are written to secrets/nomad_token or secrets/nomad_<name>.jwt")
            .unsupported("extra_claims", "extra claims are not added to the signed identity");

    static final Schema TASK = new Schema("task")
            .attr("driver", "Driver", STRING)
            .attr("user", "User", STRING)
            .attr("kill_timeout", "KillTimeout", DURATION)
            .attr("kill_signal", "KillSignal", STRING)
            .attr("shutdown_delay", "ShutdownDelay", DURATION)
            .attr("leader", "Leader", BOOL)
            .attr("kind", "Kind", STRING)
            .free("config", "Config", ANY)
            .free("env", "Env", STRING_MAP)
            .free("meta", "Meta", STRING_MAP)
            .list("constraint", "Constraints", CONSTRAINT)
            .list("affinity", "Affinities", AFFINITY)
            .one("resources", "Resources", RESOURCES)
            .one("restart", "RestartPolicy", RESTART)
            .one("lifecycle", "Lifecycle", new Schema("lifecycle")
                    .attr("hook", "Hook", STRING)
                    .attr("sidecar", "Sidecar", BOOL))
            .one("logs", "LogConfig", LOGS)
            .list("artifact", "Artifacts", ARTIFACT)
            .list("template", "Templates", TEMPLATE)
            .list("service", "Services", SERVICE)
            .list("volume_mount", "VolumeMounts", new Schema("volume_mount")
                    .attr("volume", "Volume", STRING)
                    .attr("destination", "Destination", STRING)
                    .attr("read_only", "ReadOnly", BOOL)
                    .attr("propagation_mode", "PropagationMode", STRING))
            .one("dispatch_payload", "DispatchPayload", new Schema("dispatch_payload")
                    .attr("file", "File", STRING))
            .one("vault", "Vault", VAULT)
            .one("csi_plugin", "CSIPluginConfig", new Schema("csi_plugin")
                    .attr("id", "ID", STRING)
                    .attr("type", "Type", STRING)
                    .attr("mount_dir", "MountDir", STRING)
                    .attr("stage_publish_base_dir", "StagePublishBaseDir", STRING)
                    .attr("health_timeout", "HealthTimeout", DURATION))
            .list("identity", "Identities", IDENTITY)
            // the default identity, once the parser moved it out of Identities (only for Ignored: no HCL name)
            .one("\u0000identity", "Identity", IDENTITY)
            // task scaling "cpu" / "mem" → Type "vertical_cpu" / "vertical_mem" (Nomad's vertical policies)
            // Only cpu and mem can be scaled, each once.
            .nested(new Nested("ScalingPolicies", TASK_SCALING, Card.LIST, "Type", "vertical_", null,
                    java.util.Set.of("cpu", "mem")), "scaling")
            .unsupported("volume_mount", "volumes are not mounted into tasks")
            .unsupported("vault", VAULT_NONE)
            .unsupported("csi_plugin", "CSI plugins are not implemented")
            .unsupported("kind", "Consul Connect is not implemented")
            .unsupported("scaling", "vertical scaling is not implemented")
            .post(JobSchema::defaultIdentity);

    /**
     * Nomad's parser: an {@code identity} block without a name (or named {@code default}) is the task's
     * {@code Identity}, the others its {@code Identities}.
     */
    private static void defaultIdentity(ObjectNode task) {
        if (!(task.get("Identities") instanceof com.fasterxml.jackson.databind.node.ArrayNode all)) {
            return;
        }
        for (int i = 0; i < all.size(); i++) {
            String name = all.get(i).path("Name").asText("");
            if ((name.isEmpty() || name.equals("default")) && !task.has("Identity")) {
                ObjectNode id = (ObjectNode) all.remove(i);
                id.put("Name", "default");
                task.set("Identity", id);
                break;
            }
        }
        if (all.isEmpty()) {
            task.remove("Identities");
        }
    }

    // ---- group and job ------------------------------------------------------------------------------------------

    static final Schema VOLUME = new Schema("volume")
            .attr("type", "Type", STRING)
            .attr("source", "Source", STRING)
            .attr("read_only", "ReadOnly", BOOL)
            .attr("sticky", "Sticky", BOOL)
            .attr("access_mode", "AccessMode", STRING)
            .attr("attachment_mode", "AttachmentMode", STRING)
            .attr("per_alloc", "PerAlloc", BOOL)
            .one("mount_options", "MountOptions", new Schema("mount_options")
                    .attr("fs_type", "FSType", STRING)
                    .attr("mount_flags", "MountFlags", STRINGS));

    static final Schema GROUP = new Schema("group")
            .attr("count", "Count", INT)
            .attr("shutdown_delay", "ShutdownDelay", DURATION)
            .attr("stop_after_client_disconnect", "StopAfterClientDisconnect", DURATION)
            .attr("max_client_disconnect", "MaxClientDisconnect", DURATION)
            .attr("prevent_reschedule_on_lost", "PreventRescheduleOnLost", BOOL)
            .list("constraint", "Constraints", CONSTRAINT)
            .list("affinity", "Affinities", AFFINITY)
            .list("spread", "Spreads", SPREAD)
            .labelled("task", "Tasks", "Name", TASK)
            .one("restart", "RestartPolicy", RESTART)
            .one("reschedule", "ReschedulePolicy", RESCHEDULE)
            .one("update", "Update", UPDATE)
            .one("migrate", "Migrate", MIGRATE)
            .one("disconnect", "Disconnect", DISCONNECT)
            .one("ephemeral_disk", "EphemeralDisk", EPHEMERAL_DISK)
            .list("network", "Networks", NETWORK)
            .list("service", "Services", SERVICE)
            .map("volume", "Volumes", "Name", VOLUME)
            .one("scaling", "Scaling", GROUP_SCALING)
            .one("consul", "Consul", new Schema("consul").attr("namespace", "Namespace", STRING))
            .one("vault", GROUP_VAULT, VAULT)
            .free("meta", "Meta", STRING_MAP)
            // The three older disconnect fields become the disconnect block when the job is registered (Nomad 1.8-1.9).
            .unsupported("migrate", MIGRATE_NONE)
            .unsupported("volume", "only host volumes are implemented",
                    volume -> !"host".equals(volume.path("Type").asText("host")))
            .unsupported("consul", CONSUL)
            .post(group -> inheritVault(group.remove(GROUP_VAULT), List.of(group)));

    static final Schema JOB = new Schema("job")
            .attr("id", "ID", STRING)
            .attr("name", "Name", STRING)
            .attr("namespace", "Namespace", STRING)
            .attr("region", "Region", STRING)
            .attr("type", "Type", STRING)
            .attr("priority", "Priority", INT)
            .attr("datacenters", "Datacenters", STRINGS)
            .attr("node_pool", "NodePool", STRING)
            .attr("all_at_once", "AllAtOnce", BOOL)
            .attr("consul_token", "ConsulToken", STRING)
            .attr("consul_namespace", "ConsulNamespace", STRING)
            .attr("vault_token", "VaultToken", STRING)
            .attr("vault_namespace", "VaultNamespace", STRING)
            .list("constraint", "Constraints", CONSTRAINT)
            .list("affinity", "Affinities", AFFINITY)
            .list("spread", "Spreads", SPREAD)
            .one("update", "Update", UPDATE)
            .one("multiregion", "Multiregion", MULTIREGION)
            .one("periodic", "Periodic", PERIODIC)
            .one("parameterized", "ParameterizedJob", PARAMETERIZED)
            .one("reschedule", "Reschedule", RESCHEDULE)
            .one("migrate", "Migrate", MIGRATE)
            .labelled("group", "TaskGroups", "Name", GROUP)
            .labelled("task", LONE_TASKS, "Name", TASK)
            .one("vault", JOB_VAULT, VAULT)
            .free("meta", "Meta", STRING_MAP)
            .unsupported("consul_token", CONSUL)
            .unsupported("consul_namespace", CONSUL)
            .unsupported("vault_token", VAULT_NONE)
            .unsupported("vault_namespace", VAULT_NONE)
            .unsupported("multiregion", "multiregion jobs are not implemented")
            .unsupported("reschedule", "a job-level reschedule block is not applied to its groups: set it per group")
            .unsupported("migrate", MIGRATE_NONE)
            .post(JobSchema::normalizeJob);

    /**
     * Nomad's {@code normalizeJob}: a task written directly in the job becomes a group of its own name holding only
     * it (placed before the written groups), and a job-level {@code vault} block applies to every task without one.
     */
    private static void normalizeJob(ObjectNode job) {
        JsonNode lone = job.remove(LONE_TASKS);
        if (lone != null) {
            var groups = job.arrayNode();
            for (JsonNode task : lone) {
                ObjectNode group = groups.addObject();
                group.set("Name", task.get("Name"));
                group.putArray("Tasks").add(task);
            }
            JsonNode written = job.remove("TaskGroups");
            if (written != null) {
                groups.addAll((com.fasterxml.jackson.databind.node.ArrayNode) written);
            }
            job.set("TaskGroups", groups);
        }
        inheritVault(job.remove(JOB_VAULT), job.path("TaskGroups"));
        // Nomad's normalizeVault, applied to every task's vault block (inherited or its own).
        for (JsonNode group : job.path("TaskGroups")) {
            for (JsonNode task : group.path("Tasks")) {
                if (task.get("Vault") instanceof ObjectNode vault) {
                    if (!vault.has("Env")) {
                        vault.put("Env", true);
                    }
                    putIfAbsent(vault, "ChangeMode", "restart");
                }
            }
        }
    }

    /** Copies a job- or group-level {@code vault} block into the tasks that have none (a task's own wins). */
    private static void inheritVault(JsonNode vault, Iterable<JsonNode> groups) {
        if (vault == null) {
            return;
        }
        for (JsonNode group : groups) {
            for (JsonNode task : group.path("Tasks")) {
                if (!task.has("Vault")) {
                    ((ObjectNode) task).set("Vault", vault.deepCopy());
                }
            }
        }
    }
}
