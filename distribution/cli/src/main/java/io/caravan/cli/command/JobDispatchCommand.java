package io.caravan.cli.command;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job dispatch [-meta k=v]... [-detach] [-id-prefix-template P] JOB [input-file|-]}: an instance of a
 * parameterized job ({@code POST /v1/job/:id/dispatch}), the payload read from the file or standard input, then the
 * evaluation followed as {@code job run} does.
 */
@Command(name = "dispatch", description = "Dispatch an instance of a parameterized job.")
public final class JobDispatchCommand extends HttpCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "The parameterized job's ID.")
    String id;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INPUT",
            description = "A file whose content is the payload, or - for standard input.")
    String input;

    @Option(names = {"-meta", "--meta"}, paramLabel = "KEY=VALUE", description = "Meta for the dispatched job; "
            + "repeatable.")
    List<String> meta = new ArrayList<>();

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    @Option(names = {"-idempotency-token", "--idempotency-token"}, description = "A token: a second dispatch with "
            + "it, while the first's job runs, creates nothing.")
    String idempotencyToken;

    @Option(names = {"-id-prefix-template", "--id-prefix-template"},
            description = "Put this text in the dispatched job's ID after \"dispatch-\".")
    String idPrefixTemplate;

    public JobDispatchCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Failed to dispatch job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        Map<String, String> metaMap = new HashMap<>();
        for (String kv : meta) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("Invalid metadata \"" + kv + "\": expected KEY=VALUE");
            }
            metaMap.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        byte[] payload = new byte[0];
        if (input != null) {
            try {
                payload = InputFile.STDIN.equals(input)
                        ? InputFile.read(ctx, input).getBytes(StandardCharsets.UTF_8)
                        : Files.readAllBytes(Path.of(input));
            } catch (IOException e) {
                throw new UsageException("Error reading input data: " + InputFile.reason(e));
            }
        }
        ObjectNode body = NomadJson.mapper().createObjectNode();
        if (payload.length > 0) {
            body.put("Payload", Base64.getEncoder().encodeToString(payload));
        }
        ObjectNode m = body.putObject("Meta");
        metaMap.forEach(m::put);
        if (idPrefixTemplate != null && !idPrefixTemplate.isEmpty()) {
            body.put("IdPrefixTemplate", idPrefixTemplate);
        }
        Map<String, String> query = idempotencyToken == null || idempotencyToken.isEmpty() ? Map.of()
                : Map.of("idempotency_token", idempotencyToken);
        JsonNode response = api.put("/v1/job/" + Json.pathSegment(id) + "/dispatch", query, body);
        String evalId = Json.text(response.get("EvalID"));
        List<String> pairs = new ArrayList<>(List.of("Dispatched Job ID", Json.text(response.get("DispatchedJobID"))));
        if (!evalId.isEmpty()) {
            pairs.addAll(List.of("Evaluation ID", Nomad.id(evalId, verbose)));
        }
        Nomad.keyValues(ctx.out(), pairs.toArray(String[]::new));
        if (detach || evalId.isEmpty()) {
            return 0;
        }
        ctx.out().println();
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
