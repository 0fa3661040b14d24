package io.caravan.jobspec;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.jobspec.internal.Ignored;
import java.util.List;

/**
 * The warnings a job registration answers with, as Nomad's {@code Warnings} string: today, every block or attribute
 * the job sets that Caravan parses but does not act on yet (Consul-only service fields, update, identities, CSI, Vault,
 * Consul, ...), each named by its path in the jobspec. Read from the API Job JSON, so HCL and JSON jobs warn alike.
 */
public final class JobWarnings {

    private JobWarnings() {
    }

    /** One line per ignored item: {@code group "web" -> task "app": identity block is not supported yet ...}. */
    public static List<String> unsupported(JsonNode job) {
        return Ignored.in(job);
    }

    /** Nomad's format: empty for none, else {@code "1 warning:\n\n* ..."} or {@code "N warnings:\n\n* ...\n* ..."}. */
    public static String format(List<String> warnings) {
        if (warnings.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(warnings.size() == 1 ? "1 warning:\n"
                : warnings.size() + " warnings:\n");
        warnings.forEach(w -> out.append("\n* ").append(w.strip()));
        return out.toString();
    }
}
