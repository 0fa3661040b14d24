package io.caravan.console.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectWriter;
import io.caravan.agent.AgentConfigService;
import io.caravan.agent.AgentInfo;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ConsoleAccess;
import io.caravan.rpc.Rpc;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.owasp.encoder.Encode;

/**
 * The web console's "Caravan" page ({@code <console>/caravan}; {@code caravan.json} is the same as JSON): the
 * agent's role, region and datacenter, the Raft leader and peers, this node's status and eligibility, the driver and
 * fingerprinter bundles with their health, and the last reload. A Web Console 5 plugin is a plain servlet service
 * with a label; the console wraps its HTML in its own page.
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=" + CaravanConsolePlugin.LABEL,
        "felix.webconsole.title=Caravan",
        "felix.webconsole.category=Caravan"})
public final class CaravanConsolePlugin extends HttpServlet {
    static final String LABEL = "caravan";
    private static final long serialVersionUID = 1L;
    /** Nomad's JSON names (PascalCase, {@code ID}), indented for people reading it in a browser. */
    private static final ObjectWriter JSON = NomadJson.mapper().writerWithDefaultPrettyPrinter();

    private final transient BundleContext context;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile AgentInfo agent;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile AgentConfigService config;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile Rpc rpc;

    @Activate
    public CaravanConsolePlugin(BundleContext context) {
        this.context = context;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        AgentInfo self = agent;
        ClusterApi api = new ClusterApi(rpc, self != null && self.server(),
                ConsoleAccess.token(request.getHeader("X-Nomad-Token"), request.getHeader("Authorization")));
        CaravanView view = ConsoleData.collect(context, self, config, api);
        if (request.getRequestURI().endsWith(".json")) {
            response.setContentType("application/json");
            response.setCharacterEncoding("UTF-8");
            JSON.writeValue(response.getWriter(), view);
            return;
        }
        response.setContentType("text/html");
        response.setCharacterEncoding("UTF-8");
        render(view, response.getWriter());
    }

    static void render(CaravanView v, PrintWriter out) {
        out.println("<div class='caravan'>");
        if (v.agent() != null) {
            CaravanView.Agent a = v.agent();
            table(out, "Agent", List.of("Name", "Role", "Region", "Datacenter", "Version", "Node ID"),
                    List.of(List.of(a.name(), a.role() + (a.devMode() ? " (dev)" : ""), a.region(), a.datacenter(),
                            a.version(), a.nodeId())));
        }
        table(out, "Leader", List.of("RPC address"), List.of(List.of(v.leader().isEmpty() ? "none" : v.leader())));
        table(out, "Raft peers", List.of("ID", "Node", "Address", "Voter", "Leader"), v.peers().stream()
                .map(p -> List.of(p.id(), p.node(), p.address(), yes(p.voter()), yes(p.leader()))).toList());
        if (v.node() != null) {
            CaravanView.NodeState n = v.node();
            table(out, "This node", List.of("ID", "Name", "Status", "Eligibility", "Draining"),
                    List.of(List.of(n.id(), n.name(), n.status(), n.schedulingEligibility(), yes(n.drain()))));
        }
        plugins(out, "Task drivers", v.drivers());
        plugins(out, "Fingerprinters", v.fingerprinters());
        CaravanView.Reload r = v.lastReload();
        if (r == null) {
            table(out, "Last reload", List.of("When"), List.of(List.of("no reload since the agent started")));
        } else if (r.error() != null) {
            table(out, "Last reload", List.of("When", "Failed"), List.of(List.of(r.at(), r.error())));
        } else {
            table(out, "Last reload", List.of("When", "Changed", "Restart needed", "Warnings (unsupported keys)"),
                    List.of(List.of(r.at(), String.join(", ", r.changed()), String.join(", ", r.restartRequired()),
                            String.join(", ", r.warnings()))));
        }
        if (!v.problems().isEmpty()) {
            table(out, "Not available", List.of("Part", "Why"), v.problems().entrySet().stream()
                    .map(e -> List.of(e.getKey(), e.getValue())).toList());
        }
        out.println("</div>");
    }

    private static void plugins(PrintWriter out, String title, List<CaravanView.Plugin> plugins) {
        table(out, title, List.of("Name", "Bundle", "Version", "Bundle state", "Detected", "Healthy", "Health"),
                plugins.stream().map(p -> List.of(p.name(), p.bundle(), p.version(), p.bundleState(),
                        yes(p.detected()), yes(p.healthy()), p.healthDescription())).toList());
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    /** A console-styled table; every cell is HTML-escaped. */
    private static void table(PrintWriter out, String title, List<String> headers, List<List<String>> rows) {
        out.println("<table class='nicetable'><thead><tr><th class='ui-widget-header' colspan='" + headers.size()
                + "'>" + Encode.forHtml(title) + "</th></tr><tr>");
        headers.forEach(h -> out.print("<th>" + Encode.forHtml(h) + "</th>"));
        out.println("</tr></thead><tbody>");
        if (rows.isEmpty()) {
            out.println("<tr><td colspan='" + headers.size() + "'>none</td></tr>");
        }
        for (List<String> row : rows) {
            out.print("<tr>");
            row.forEach(cell -> out.print("<td>" + Encode.forHtml(cell == null ? "" : cell) + "</td>"));
            out.println("</tr>");
        }
        out.println("</tbody></table><br/>");
    }
}
