package io.caravan.scheduler.internal.placement.check;

import io.caravan.api.model.HostVolumeInfo;
import io.caravan.api.model.Node;
import io.caravan.api.model.VolumeRequest;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/**
 * Every {@code host} volume the group asks for exists on the node, writable unless asked read-only. A per-alloc
 * volume's source gets the allocation's index suffix ({@code data[2]}).
 */
public final class HostVolumeCheck implements FeasibilityCheck {
    public static final String REASON = "missing compatible host volumes";

    @Override
    public String name() {
        return "host-volumes";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.TRANSIENT;
    }

    @Override
    public boolean appliesTo(PlacementRequest request) {
        return request.group().volumes().values().stream().anyMatch(v -> VolumeRequest.TYPE_HOST.equals(v.type()));
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        for (VolumeRequest v : request.group().volumes().values()) {
            if (!VolumeRequest.TYPE_HOST.equals(v.type())) {
                continue;
            }
            String source = v.perAlloc() ? v.source() + suffix(request.allocName()) : v.source();
            HostVolumeInfo offered = node.hostVolumes().get(source);
            if (offered == null || (offered.readOnly() && !v.readOnly())) {
                return Verdict.reject(REASON, false);
            }
        }
        return Verdict.PASS;
    }

    private static String suffix(String allocName) {
        int open = allocName == null ? -1 : allocName.lastIndexOf('[');
        return open < 0 ? "" : allocName.substring(open);
    }
}
