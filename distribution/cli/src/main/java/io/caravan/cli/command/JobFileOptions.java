package io.caravan.cli.command;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The job file and its variables, shared by the commands that read one ({@code job run}, {@code job validate}). */
public final class JobFileOptions {

    @Parameters(paramLabel = "FILE", description = "The job file (HCL2 or JSON).")
    Path file;

    @Option(names = {"-var", "--var"}, description = "A variable, name=value (repeatable).")
    List<String> vars = new ArrayList<>();

    @Option(names = {"-var-file", "--var-file"}, description = "A file of HCL variable values (repeatable).")
    List<Path> varFiles = new ArrayList<>();

    /** The API's Job: JSON as it is, HCL parsed by the server. */
    JsonNode job(ApiClient api) throws ApiException {
        return JobFile.read(api, file, vars, varFiles);
    }
}
