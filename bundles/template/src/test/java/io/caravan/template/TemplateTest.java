package io.caravan.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateTest {

    static String run(String text, Object data) throws TemplateException {
        return Template.parse("t", text).execute(data);
    }

    @Test
    void syntaxErrorsNameLineAndColumn() {
        TemplateException e = assertThrows(TemplateException.class,
                () -> Template.parse("config.tpl", "port = 80\nhost = {{ .Host }\n"));
        assertEquals("template: config.tpl:2:16: unrecognized character in action: U+007D '}'", e.getMessage());
        assertEquals(2, e.line());
        assertEquals(16, e.column());

        e = assertThrows(TemplateException.class, () -> Template.parse("x", "a\n\n  {{if .A}}b"));
        assertEquals("template: x:3:12: unexpected EOF", e.getMessage());
        e = assertThrows(TemplateException.class, () -> Template.parse("x", "{{ nomadVar \"a\" }}"));
        assertEquals("template: x:1:3: function \"nomadVar\" not defined", e.getMessage());
        e = assertThrows(TemplateException.class, () -> Template.parse("X", "hello\n\n{{`unterminated\n\n\n\n}}\n some more\n\n"));
        assertTrue(e.getMessage().startsWith("template: X:3:2: unterminated raw quoted string"), e.getMessage());
    }

    @Test
    void executionErrorsCarryGoContext() throws TemplateException {
        String text = "line 1\nline 2\nline 3\n{{template \"one\" .}}\n{{define \"one\"}}{{template \"two\" .}}{{end}}\n"
                + "{{define \"two\"}}{{template \"three\" .}}{{end}}\n{{define \"three\"}}{{index \"hi\" $}}{{end}}";
        TemplateException e = assertThrows(TemplateException.class, () -> run(text, 5L));
        assertEquals("template: top:7:20: executing \"three\" at <index \"hi\" $>: error calling index: index out of range: 5"
                .replace("top", "t"), e.getMessage());
        e = assertThrows(TemplateException.class, () -> run("hello, {{.X.Y}}", 0L));
        assertTrue(e.getMessage().endsWith("can't evaluate field X in type int"), e.getMessage());
    }

    /** exec_test.go's TestExecutePanicDuringCall and TestFunctionCheckDuringCall, as far as Java data goes. */
    @Test
    void failingCallsAreReportedAtTheirNode() throws TemplateException {
        Functions fns = Functions.builtins().with("doPanic", a -> {
            throw new IllegalStateException("custom panic string");
        });
        TemplateOptions opts = TemplateOptions.defaults().withFunctions(fns);
        Map<String, Object> data = Map.of("PanicFunc", (TemplateFunction) a -> {
            throw new IllegalStateException("test panic");
        }, "True", true, "BinaryFunc", (TemplateFunction) a -> a.expect(2).string(0) + a.string(1));
        String[][] cases = {
            {"{{doPanic}}", "template: t:1:2: executing \"t\" at <doPanic>: error calling doPanic: custom panic string"},
            {"{{call doPanic}}", "template: t:1:7: executing \"t\" at <doPanic>: error calling doPanic: custom panic string"},
            {"{{call .PanicFunc}}", "template: t:1:2: executing \"t\" at <call .PanicFunc>: error calling call: test panic"},
            {"{{call}}", "wrong number of args for call: want at least 1 got 0"},
            {"{{call .True}}", "error calling call: non-function .True of type bool"},
            {"{{call (len \"test\")}}", "error calling call: non-function len \"test\" of type int"},
            {"{{call .BinaryFunc 1}}", "error calling call: wrong number of args for .BinaryFunc: want 2 got 1"},
        };
        for (String[] c : cases) {
            TemplateException e = assertThrows(TemplateException.class, () -> Template.parse("t", c[0], opts).execute(data));
            assertTrue(e.getMessage().endsWith(c[1]), c[0] + " -> " + e.getMessage());
        }
    }

    @Test
    void customDelimiters() throws TemplateException {
        String[][] pairs = {{"{{", "}}"}, {"<<", ">>"}, {"|", "|"}, {"(日)", "(本)"}};
        for (String[] p : pairs) {
            String text = p[0] + ".Str" + p[1] + p[0] + "/*comment*/" + p[1] + p[0] + "\"" + p[0] + "\"" + p[1];
            Template t = Template.parse("delims", text, TemplateOptions.defaults().withDelims(p[0], p[1]));
            assertEquals("Hello, world" + p[0], t.execute(Map.of("Str", "Hello, world")), p[0]);
        }
    }

    record Tree(long val, Tree left, Tree right) {}

    @Test
    void recursiveTemplatesWithTrimming() throws TemplateException {
        String text = "\n\t(- define \"tree\" -)\n\t[\n\t\t(- .Val -)\n\t\t(- with .Left -)\n\t\t\t(template \"tree\" . -)\n"
                + "\t\t(- end -)\n\t\t(- with .Right -)\n\t\t\t(- template \"tree\" . -)\n\t\t(- end -)\n\t]\n\t(- end -)\n";
        Tree tree = new Tree(1, new Tree(2, new Tree(3, new Tree(4, null, null), null), new Tree(5, new Tree(6, null, null), null)),
                new Tree(7, new Tree(8, new Tree(9, null, null), null), new Tree(10, new Tree(11, null, null), null)));
        Template t = Template.parse("root", text, TemplateOptions.defaults().withDelims("(", ")"));
        assertEquals("[1[2[3[4]][5[6]]][7[8[9]][10[11]]]]", t.execute("tree", tree));
    }

    @Test
    void blockCanBeOverridden() throws TemplateException {
        Template t = Template.parse("outer", "a({{block \"inner\" .}}bar({{.}})baz{{end}})b");
        Template t2 = t.with("overlay", "{{define \"inner\"}}foo({{.}})bar{{end}}");
        assertEquals("a(bar(hello)baz)b", t.execute("hello"));
        assertEquals("a(foo(goodbye)bar)b", t2.execute("goodbye"));
    }

    @Test
    void missingKeyOptions() throws TemplateException {
        Map<String, Object> data = Map.of("x", 99L);
        assertEquals("99 <no value>", run("{{.x}} {{.y}}", data));
        Template zero = Template.parse("t", "{{.x}} {{.y}}", TemplateOptions.defaults().withMissingKey(MissingKey.ZERO));
        assertEquals("99 0", zero.execute(data));
        Template strict = Template.parse("t", "{{.x}} {{.y}}", TemplateOptions.defaults().withMissingKey(MissingKey.ERROR));
        TemplateException e = assertThrows(TemplateException.class, () -> strict.execute(data));
        assertTrue(e.getMessage().endsWith("map has no entry for key \"y\""), e.getMessage());
        assertThrows(TemplateException.class, () -> strict.execute(null));
    }

    @Test
    void runawayTemplatesStopAtTheirBudgets() throws TemplateException {
        Functions loop = ConsulFunctions.create(Map.of(), java.time.Clock.systemUTC());
        TemplateOptions small = TemplateOptions.defaults().withFunctions(loop).withLimits(10_000, 1000, 50, 100);
        TemplateException e = assertThrows(TemplateException.class,
                () -> Template.parse("t", "{{range loop 1000000000}}{{end}}", small).execute(null));
        assertTrue(e.getMessage().contains("exceeded the budget of 10000 evaluation steps (Go has no such limit)"), e.getMessage());
        e = assertThrows(TemplateException.class,
                () -> Template.parse("t", "{{range loop 500}}xxxxxxxxxx{{end}}", small).execute(null));
        assertTrue(e.getMessage().contains("output exceeds the limit of 1000 characters"), e.getMessage());
        e = assertThrows(TemplateException.class, () -> Template.parse("t", "{{template \"t\" .}}", small).execute(null));
        assertTrue(e.getMessage().contains("exceeded maximum template depth (50)"), e.getMessage());
        // within the budget it runs
        assertEquals("01234", Template.parse("t", "{{range loop 5}}{{.}}{{end}}", small).execute(null));
    }

    @Test
    void defaultDepthFitsAThreadsDefaultStack() throws Exception {
        Functions fns = ConsulFunctions.create(Map.of(), java.time.Clock.systemUTC());
        String text = "{{define \"r\"}}{{if gt . 0}}{{with $x := .}}{{range loop 1}}{{template \"r\" (subtract 1 $x)}}"
                + "{{end}}{{end}}{{end}}{{end}}{{template \"r\" .}}";
        Template t = Template.parse("t", text, TemplateOptions.defaults().withFunctions(fns));
        String[] results = new String[2];
        Thread th = new Thread(() -> {
            for (int i = 0; i < 2; i++) {
                try {
                    results[i] = "ok:" + t.execute(i == 0 ? 99L : 100L);
                } catch (TemplateException e) {
                    results[i] = e.getMessage();
                }
            }
        });
        th.start();
        th.join(30_000);
        assertEquals("ok:", results[0]);
        assertTrue(results[1].contains("exceeded maximum template depth (100)"), results[1]);
    }

    @Test
    void hostileNestingIsAParseError() {
        String deep = "{{" + "(".repeat(5000) + "1" + ")".repeat(5000) + "}}";
        TemplateException e = assertThrows(TemplateException.class, () -> Template.parse("t", deep));
        assertTrue(e.getMessage().contains("max expression depth exceeded"), e.getMessage());
        String ifs = "{{if 1}}".repeat(5000) + "{{end}}".repeat(5000);
        e = assertThrows(TemplateException.class, () -> Template.parse("t", ifs));
        assertTrue(e.getMessage().contains("max control structure depth exceeded"), e.getMessage());
    }

    @Test
    void printfVerbs() throws TemplateException {
        String[][] cases = {
            {"{{printf \"%5.2f|\" 3.14159}}", " 3.14|"},
            {"{{printf \"%-5s|%5s|\" \"ab\" \"cd\"}}", "ab   |   cd|"},
            {"{{printf \"%05d %+d %x %X %o %b %c %U\" 42 42 255 255 8 5 65 65}}", "00042 +42 ff FF 10 101 A U+0041"},
            {"{{printf \"%q %v %t %s\" \"a\\\"b\" 1.5 true .}}", "\"a\\\"b\" 1.5 true x"},
            {"{{printf \"%e %g %g %g %.3g\" 123456.789 1e6 100000.0 0.00001 3.14159}}", "1.234568e+05 1e+06 100000 1e-05 3.14"},
            {"{{printf \"%d\" \"hi\"}}", "%!d(string=hi)"},
            {"{{printf \"%d %d\" 1}}", "1 %!d(MISSING)"},
            {"{{printf \"%d\" 1 2}}", "1%!(EXTRA int=2)"},
            {"{{printf \"%x\" \"hi\"}}", "6869"},
            {"{{printf \"%v %v\" .L .M}}", "[1 a true] map[a:1 b:[x]]"},
            {"{{printf \"%08.3f|%-8.2f|%8.3e\" -3.14159 2.5 1234.5}}", "-003.142|2.50    |1.234e+03"},
            {"{{printf \"%T %T %T %T\" 1 1.5 \"s\" .L}}", "int float64 string []interface {}"},
            {"{{printf \"%6.2f%%\" 99.5}}", " 99.50%"},
        };
        Map<String, Object> data = Map.of("L", List.of(1L, "a", true), "M", Map.of("b", List.of("x"), "a", 1L));
        for (String[] c : cases) {
            assertEquals(c[1], Template.parse("t", c[0]).execute(c[0].contains("%t %s") ? "x" : data), c[0]);
        }
    }

    record Service(String name, String address, int port, List<String> tags) {}

    @Test
    void recordsListsAndMapsAsData() throws TemplateException {
        List<Service> services = List.of(new Service("web", "10.0.0.1", 8080, List.of("a", "b")),
                new Service("api", "10.0.0.2", 9090, List.of()));
        String text = "{{- range $i, $s := .Services }}\n{{ $i }}: {{ .Name }} {{ .address }}:{{ .Port }}"
                + "{{ with .Tags }} [{{ join \",\" . }}]{{ end }}\n{{- end }}";
        Functions fns = ConsulFunctions.create(Map.of(), java.time.Clock.systemUTC());
        String out = Template.parse("t", text, TemplateOptions.defaults().withFunctions(fns))
                .execute(Map.of("Services", services));
        assertEquals("\n0: web 10.0.0.1:8080 [a,b]\n1: api 10.0.0.2:9090", out);
        assertEquals("{web 10.0.0.1 8080 [a b]}", run("{{index . 0}}", services));
    }

    @Test
    void rangeOverMapsIsInKeyOrderAndSupportsBreakContinue() throws TemplateException {
        Map<String, Object> m = Map.of("b", 2L, "a", 1L, "c", 3L);
        assertEquals("a=1 b=2 c=3 ", run("{{range $k, $v := .}}{{$k}}={{$v}} {{end}}", m));
        assertEquals("a", run("{{range $k, $v := .}}{{if eq $k \"b\"}}{{break}}{{end}}{{$k}}{{end}}", m));
        assertEquals("ac", run("{{range $k, $v := .}}{{if eq $k \"b\"}}{{continue}}{{end}}{{$k}}{{end}}", m));
        assertEquals("012", run("{{range 3}}{{.}}{{end}}", null));
        assertEquals("empty", run("{{range .}}x{{else}}empty{{end}}", new ArrayList<>()));
    }

    @Test
    void accessibleObjectsAndFunctionValues() throws TemplateException {
        Accessible obj = (name, args) -> switch (name) {
            case "Name" -> "node-1";
            case "Meta" -> args.isEmpty() ? Accessible.NO_SUCH : "meta:" + args.get(0);
            default -> Accessible.NO_SUCH;
        };
        assertEquals("node-1 meta:rack", run("{{.Name}} {{.Meta \"rack\"}}", obj));
        TemplateException e = assertThrows(TemplateException.class, () -> run("{{.Nope}}", obj));
        assertTrue(e.getMessage().contains("can't evaluate field Nope"), e.getMessage());
        TemplateFunction twice = a -> a.integer(0) * 2;
        assertEquals("42", run("{{call .F 21}}", Map.of("F", twice)));
    }

    @Test
    void jsAndHtmlEscaping() throws TemplateException {
        String[][] js = {{"a", "a"}, {"'foo", "\\'foo"}, {"Go \"jump\" \\", "Go \\\"jump\\\" \\\\"},
            {"Yukihiro says \"今日は世界\"", "Yukihiro says \\\"今日は世界\\\""}, {"<html>", "\\u003Chtml\\u003E"},
            {"no = in attributes", "no \\u003D in attributes"},
            {"&#x27; does not become HTML entity", "\\u0026#x27; does not become HTML entity"}};
        for (String[] c : js) assertEquals(c[1], run("{{js .}}", c[0]), c[0]);
        assertEquals("&lt;a href=&#34;x&#34;&gt;&amp;&#39;", run("{{html .}}", "<a href=\"x\">&'"));
        assertEquals("a+b%26c%3D%C3%A9", run("{{urlquery .}}", "a b&c=é"));
    }

    @Test
    void concurrentExecutionsShareOneTemplate() throws Exception {
        Template t = Template.parse("t", "{{range .}}{{.}}{{end}}");
        List<Thread> threads = new ArrayList<>();
        List<String> results = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 4; i++) {
            long n = i;
            Thread th = new Thread(() -> {
                try {
                    results.add(t.execute(List.of(n, n)));
                } catch (TemplateException e) {
                    results.add(e.getMessage());
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) th.join(10_000);
        assertEquals(List.of("00", "11", "22", "33"), results.stream().sorted().toList());
    }

    /** A map with methods (Nomad's variable items): methods first, then the map's own entries, and range over them. */
    static final class ItemsMap extends java.util.TreeMap<String, String> implements Accessible {
        private static final long serialVersionUID = 1L;

        ItemsMap(Map<String, String> items) {
            super(items);
        }

        @Override
        public Object access(String name, List<Object> args) {
            return name.equals("Keys") ? new ArrayList<>(keySet()) : NO_SUCH;
        }
    }

    @Test
    void anAccessibleMapFallsBackToItsEntries() throws Exception {
        Object data = Map.of("v", new ItemsMap(Map.of("user", "app", "pass", "x")));
        assertEquals("app [pass user] pass=x,user=app,", Template.parse("t",
                "{{ .v.user }} {{ .v.Keys }} {{ range $k, $v := .v }}{{ $k }}={{ $v }},{{ end }}").execute(data));
        assertEquals("<no value>", Template.parse("t", "{{ .v.missing }}").execute(data));
        assertThrows(TemplateException.class, () -> Template.parse("t", "{{ .v.missing }}",
                TemplateOptions.defaults().withMissingKey(MissingKey.ERROR)).execute(data));
    }
}
