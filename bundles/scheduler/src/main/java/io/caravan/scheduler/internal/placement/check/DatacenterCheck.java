package io.caravan.scheduler.internal.placement.check;

import java.util.List;

import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/** The node's datacenter matches one of the job's datacenters, which may be globs ({@code "*"}, {@code "eu-*"}). */
public final class DatacenterCheck implements FeasibilityCheck {
    public static final String REASON = "datacenter";

    @Override
    public String name() {
        return "datacenter";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.CANDIDATE;
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        List<String> dcs = request.job().datacenters();
        if (dcs.isEmpty()) {
            return Verdict.PASS; // Nomad's default is ["*"]
        }
        String dc = node.datacenter() == null ? "" : node.datacenter();
        for (String pattern : dcs) {
            if (glob(pattern, dc)) {
                return Verdict.PASS;
            }
        }
        return Verdict.reject(REASON, true);
    }

    /** {@code *} matches any run of characters; everything else is literal. */
    static boolean glob(String pattern, String text) {
        int p = 0;
        int t = 0;
        int star = -1;
        int mark = 0;
        while (t < text.length()) {
            if (p < pattern.length() && pattern.charAt(p) == '*') {
                star = p++;
                mark = t;
            } else if (p < pattern.length() && pattern.charAt(p) == text.charAt(t)) {
                p++;
                t++;
            } else if (star >= 0) {
                p = star + 1;
                t = ++mark;
            } else {
                return false;
            }
        }
        while (p < pattern.length() && pattern.charAt(p) == '*') {
            p++;
        }
        return p == pattern.length();
    }
}
