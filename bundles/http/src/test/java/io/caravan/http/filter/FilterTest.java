package io.caravan.http.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class FilterTest {
    private static final JsonNode NODE = json("""
            {"ID": "a1b2", "Status": "ready", "Datacenter": "dc1", "Drain": false, "CreateIndex": 42,
             "Meta": {"rack": "r1", "my-key": "x y"}, "Drivers": {"raw_exec": {"Healthy": true}},
             "Datacenters": ["dc1", "dc2"], "Empty": [], "Nothing": null, "Name": ""}
            """);

    private static JsonNode json(String text) {
        try {
            return NomadJson.mapper().readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Status == \"ready\"                                 | true",
        "Status != \"ready\"                                 | false",
        "Status == `ready`                                   | true",
        "CreateIndex == 42                                   | true",
        "CreateIndex == \"42\"                               | true",
        "Drain == false                                      | true",
        "Meta.rack == \"r1\"                                 | true",
        "Meta[\"my-key\"] == \"x y\"                         | true",
        "Meta[\"absent\"] == \"\"                            | false",
        "Meta[\"absent\"] is empty                           | true",
        "Empty is empty and Nothing is empty and Name is empty | true",
        "Datacenters is not empty                            | true",
        "\"dc2\" in Datacenters                              | true",
        "\"dc3\" not in Datacenters                          | true",
        "\"raw_exec\" in Drivers                             | true",
        "Drivers.raw_exec.Healthy == true                    | true",
        "Datacenters contains \"dc1\"                        | true",
        "ID contains \"b2\"                                  | true",
        "ID matches \"^a1\"                                  | true",
        "ID not matches \"^b\"                               | true",
        "not Status == \"down\"                              | true",
        "Status == \"down\" or Meta.rack == \"r1\" and Datacenter == \"dc1\" | true",
        "(Status == \"down\" or Meta.rack == \"r1\") and Datacenter == \"dc2\" | false",
        "not (Status == \"ready\" and Drain == true)         | true",
    })
    void evaluatesLikeGoBexpr(String expression, boolean expected) {
        assertEquals(expected, Filter.parse(expression).matches(NODE), expression);
    }

    @ParameterizedTest
    @ValueSource(strings = {"Status ==", "Status = \"x\"", "== \"x\"", "(Status == \"x\"", "Status == \"x\" and",
        "Status == \"unterminated", "Meta[rack] == \"r1\"", "ID matches \"[\"", "Status ~ 1"})
    void badExpressionsAreA400NamingTheProblem(String expression) {
        CaravanException e = assertThrows(CaravanException.class, () -> Filter.parse(expression));
        assertEquals(400, e.code().httpStatus());
        assertEquals(true, e.getMessage().startsWith("failed to read filter expression: "), e.getMessage());
    }

    @Test
    void aFieldTheObjectLacksIsNomadsDatumError() {
        CaravanException e = assertThrows(CaravanException.class,
                () -> Filter.parse("Address == \"x\"").matches(NODE));
        assertEquals(400, e.code().httpStatus());
        assertEquals(true, e.getMessage().startsWith("error finding value in datum"), e.getMessage());
    }
}
