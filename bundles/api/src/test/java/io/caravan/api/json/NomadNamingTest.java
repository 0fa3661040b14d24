package io.caravan.api.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NomadNamingTest {

    @ParameterizedTest
    @CsvSource({
        "id, ID",
        "jobId, JobID",
        "createIndex, CreateIndex",
        "httpAddr, HTTPAddr",
        "tlsEnabled, TLSEnabled",
        "memoryMb, MemoryMB",
        "cpuShares, CPUShares",
        "failedTgAllocs, FailedTGAllocs",
        "relatedEvalIds, RelatedEvalIDs",
        "secretId, SecretID",
        "aclEnabled, ACLEnabled",
        "name, Name",
        "protocolMin, ProtocolMin",
    })
    void translatesLikeGoStructFields(String javaName, String wireName) {
        assertEquals(wireName, NomadNaming.INSTANCE.translate(javaName));
    }

    record Member(String name, String addr, int port, String jobId) {}

    @Test
    void recordsRoundTripWithCaseInsensitiveInputAndUnknownFields() throws Exception {
        String json = NomadJson.mapper().writeValueAsString(new Member("n1.global", "127.0.0.1", 4648, "web"));
        assertEquals("{\"Name\":\"n1.global\",\"Addr\":\"127.0.0.1\",\"Port\":4648,\"JobID\":\"web\"}", json);

        Member in = NomadJson.mapper().readValue(
                "{\"name\":\"a\",\"ADDR\":\"b\",\"Port\":1,\"jobid\":\"j\",\"Extra\":true}", Member.class);
        assertEquals(new Member("a", "b", 1, "j"), in);
    }

    @Test
    void prettyUsesFourSpaces() throws Exception {
        String pretty = NomadJson.writer(true).writeValueAsString(new Member("a", "b", 1, "j"));
        JsonNode tree = NomadJson.mapper().readTree(pretty);
        assertEquals("a", tree.get("Name").asText());
        assertEquals("{\n    \"Name\": \"a\",\n    \"Addr\": \"b\",\n    \"Port\": 1,\n    \"JobID\": \"j\"\n}", pretty);
        assertEquals("[]", NomadJson.writer(true).writeValueAsString(java.util.List.of()));
        assertEquals("{}", NomadJson.writer(true).writeValueAsString(java.util.Map.of()));
    }
}
