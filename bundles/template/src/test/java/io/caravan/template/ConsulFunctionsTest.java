package io.caravan.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsulFunctionsTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-27T09:05:03.250Z"), ZoneOffset.UTC);
    private static final Functions FNS = ConsulFunctions.create(Map.of("HOME", "/home/app", "PORT", "8080"), CLOCK);

    static String run(String text, Object data) throws TemplateException {
        return Template.parse("t", text, TemplateOptions.defaults().withFunctions(FNS)).execute(data);
    }

    @Test
    void env() throws TemplateException {
        assertEquals("/home/app|", run("{{env \"HOME\"}}|{{env \"MISSING\"}}", null));
        assertEquals("8081", run("{{env \"PORT\" | parseInt | add 1}}", null));
    }

    @Test
    void json() throws TemplateException {
        Map<String, Object> data = Map.of("b", List.of(1L, 2.5, "x<y"), "a", Map.of(), "c", true);
        assertEquals("{\"a\":{},\"b\":[1,2.5,\"x\\u003cy\"],\"c\":true}", run("{{toJSON .}}", data));
        assertEquals("{\n  \"a\": {},\n  \"b\": [\n    1,\n    2.5,\n    \"x\\u003cy\"\n  ],\n  \"c\": true\n}",
                run("{{toJSONPretty .}}", data));
        assertEquals("8080 web [a b] true", run("{{with parseJSON .}}{{.port}} {{.name}} {{.tags}} {{.ok}}{{end}}",
                "{\"port\": 8080, \"name\": \"web\", \"tags\": [\"a\",\"b\"], \"ok\": true}"));
        assertEquals("1e+06 1e+21", run("{{(parseJSON .).n}} {{toJSON (parseJSON .).m}}", "{\"n\": 1000000, \"m\": 1e21}"));
        assertEquals("map[]", run("{{parseJSON \"\"}}", null));
        TemplateException e = assertThrows(TemplateException.class, () -> run("{{parseJSON .}}", "{\"a\":"));
        assertTrue(e.getMessage().contains("error calling parseJSON"), e.getMessage());
    }

    @Test
    void yaml() throws TemplateException {
        Map<String, Object> data = Map.of("name", "web", "port", 8080L, "tags", List.of("a", "b"),
                "meta", Map.of("zone", "eu", "empty", ""), "flag", "true", "nested", List.of(Map.of("k", "v", "j", 1L)));
        assertEquals("flag: \"true\"\nmeta:\n  empty: \"\"\n  zone: eu\nname: web\nnested:\n- j: 1\n  k: v\nport: 8080\n"
                + "tags:\n- a\n- b", run("{{toYAML .}}", data));
    }

    @Test
    void strings() throws TemplateException {
        assertEquals("[a b c]", run("{{\"a,b,c\" | split \",\"}}", null));
        assertEquals("0", run("{{\"  \" | split \",\" | len}}", null));
        assertEquals("a;b", run("{{\"a,b\" | split \",\" | join \";\"}}", null));
        assertEquals("x-y-z", run("{{\"x.y.z\" | replaceAll \".\" \"-\"}}", null));
        assertEquals("abc ABC Hello World HELLO", run("{{toLower \"ABC\"}} {{toUpper \"abc\"}} {{title \"hello world\"}} {{toTitle \"hello\"}}", null));
        assertEquals("[x] bar foo", run("[{{trimSpace \"  x \"}}] {{\"foobar\" | trimPrefix \"foo\"}} {{\"foobar\" | trimSuffix \"bar\"}}", null));
        assertEquals("    a\n    b", run("{{\"a\\nb\" | indent 4}}", null));
    }

    @Test
    void membership() throws TemplateException {
        Map<String, Object> d = Map.of("Tags", List.of("prod", "web"));
        assertEquals("true false true", run("{{.Tags | contains \"prod\"}} {{.Tags | contains \"dev\"}} {{in .Tags \"web\"}}", d));
        assertEquals("true", run("{{\"hello world\" | contains \"lo w\"}}", null));
        assertEquals("true false true false", run("{{.Tags | containsAll (split \",\" \"prod,web\")}} "
                + "{{.Tags | containsAll (split \",\" \"prod,x\")}} {{.Tags | containsAny (split \",\" \"x,web\")}} "
                + "{{.Tags | containsNone (split \",\" \"x,web\")}}", d));
    }

    @Test
    void regexes() throws TemplateException {
        assertEquals("true false", run("{{\"v1.2.3\" | regexMatch \"^v[0-9]+\"}} {{\"x\" | regexMatch \"^v\"}}", null));
        assertEquals("3.2.1 [a]", run("{{\"1.2.3\" | regexReplaceAll \"([0-9])\\\\.([0-9])\\\\.([0-9])\" \"${3}.$2.$1\"}} "
                + "{{\"a\" | regexReplaceAll \"(a)\" \"[$1]\"}}", null));
        TemplateException e = assertThrows(TemplateException.class, () -> run("{{regexMatch \"(\" \"x\"}}", null));
        assertTrue(e.getMessage().contains("error parsing regexp"), e.getMessage());
    }

    @Test
    void math() throws TemplateException {
        assertEquals("5 3 10 5 1 2.5 3", run("{{3 | add 2}} {{5 | subtract 2}} {{5 | multiply 2}} {{10 | divide 2}} "
                + "{{10 | modulo 3}} {{5.0 | divide 2}} {{maximum 3 2}}", null));
        TemplateException e = assertThrows(TemplateException.class, () -> run("{{1 | divide 0}}", null));
        assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
        e = assertThrows(TemplateException.class, () -> run("{{\"a\" | add 1}}", null));
        assertTrue(e.getMessage().contains("add: unknown type for \"a\" (string)"), e.getMessage());
        assertEquals("2345", run("{{range loop 2 6}}{{.}}{{end}}", null));
        assertEquals("true 1.5", run("{{parseBool \"true\"}} {{parseFloat \"1.5\"}}", null));
    }

    @Test
    void timestampUsesGoLayouts() throws TemplateException {
        assertEquals("2026-11-27T09:05:03Z", run("{{timestamp}}", null));
        assertEquals(Long.toString(CLOCK.instant().getEpochSecond()), run("{{timestamp \"unix\"}}", null));
        assertEquals("27 Nov 26 09:05 UTC|Friday, 9:05AM|2026-11-27 09:05:03.250",
                run("{{timestamp \"02 Jan 06 15:04 MST\"}}|{{timestamp \"Monday, 3:04PM\"}}|{{timestamp \"2006-01-02 15:04:05.000\"}}", null));
    }

    @Test
    void base64() throws TemplateException {
        assertEquals("aGk/Pz4= aGk_Pz4= hi??> hi??>", run("{{base64Encode .}} {{base64URLEncode .}} "
                + "{{base64Decode \"aGk/Pz4=\"}} {{base64URLDecode \"aGk_Pz4=\"}}", "hi??>"));
        assertThrows(TemplateException.class, () -> run("{{base64Decode \"!!\"}}", null));
    }

    @Test
    void clientFunctionsPlugIn() throws TemplateException {
        Map<String, Map<String, Object>> vars = Map.of("nomad/jobs/web", Map.of("Items", Map.of("password", "s3cret")));
        Functions withVars = FNS.with("nomadVar", a -> {
            Map<String, Object> v = vars.get(a.expect(1).string(0));
            if (v == null) throw new IllegalStateException("no variable at " + a.string(0));
            return v.get("Items");
        });
        String text = "{{ with nomadVar \"nomad/jobs/web\" }}password={{ .password }}{{ end }}";
        assertEquals("password=s3cret", Template.parse("t", text, TemplateOptions.defaults().withFunctions(withVars)).execute(null));
        TemplateException e = assertThrows(TemplateException.class, () -> Template.parse("t", "{{ nomadVar \"x\" }}",
                TemplateOptions.defaults().withFunctions(withVars)).execute(null));
        assertEquals("template: t:1:3: executing \"t\" at <nomadVar \"x\">: error calling nomadVar: no variable at x",
                e.getMessage());
    }

    @Test
    void aServerChecksSyntaxWithDeclaredClientFunctions() throws TemplateException {
        TemplateOptions serverSide = TemplateOptions.defaults().withFunctions(FNS.declaring("nomadVar", "nomadService"));
        Template ok = Template.parse("t", "{{ range nomadService \"db\" }}{{ .Address }}{{ end }}", serverSide);
        assertThrows(TemplateException.class, () -> ok.execute(null));
        TemplateException e = assertThrows(TemplateException.class,
                () -> Template.parse("t", "{{ range nomadService \"db\" }}\n{{ .Address }", serverSide));
        assertEquals("template: t:2:12: unrecognized character in action: U+007D '}'", e.getMessage());
        assertEquals("env", FNS.declaring("env").get("env").map(f -> "env").orElseThrow());
        assertEquals("/home/app", Template.parse("t", "{{env \"HOME\"}}",
                TemplateOptions.defaults().withFunctions(FNS.declaring("env"))).execute(null));
    }
}
