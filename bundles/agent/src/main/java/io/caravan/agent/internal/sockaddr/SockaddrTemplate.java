package io.caravan.agent.internal.sockaddr;

import io.caravan.agent.internal.sockaddr.Functions.Addrs;
import io.caravan.agent.internal.sockaddr.TemplateParser.Action;
import io.caravan.agent.internal.sockaddr.TemplateParser.Segment;
import io.caravan.agent.internal.sockaddr.TemplateParser.Text;

/**
 * Renders HashiCorp go-sockaddr templates, the form Nomad accepts in {@code bind_addr}, {@code addresses} and
 * {@code advertise}: {@code "{{ GetPrivateIP }}"}, {@code "{{ GetInterfaceIP \"eth0\" }}:4647"},
 * {@code "{{ GetAllInterfaces | include \"network\" \"10.0.0.0/8\" | attr \"address\" }}"}.
 *
 * <p>Unlike go-sockaddr, rendering never yields an empty address: since an empty result is always a configuration
 * error for our callers, an action that evaluates to nothing (e.g. {@code GetPrivateIP} on a host without a private
 * address) or a blank overall result throws "template evaluated to no address". The result is stripped of surrounding
 * whitespace; text without {@code {{ }}} comes back unchanged.
 */
public final class SockaddrTemplate {
    private SockaddrTemplate() {
    }

    /**
     * @return the rendered text, e.g. {@code 10.0.0.5} or {@code 10.0.0.5:4647}; functions such as
     *         {@code GetPrivateIPs} or {@code join} can make it several space-separated addresses
     * @throws SockaddrException on a syntax error, an unknown or unsupported function, a bad argument, or a result
     *                           without an address; the message names the function and the reason
     */
    public static String render(String template, Interfaces source) throws SockaddrException {
        Functions functions = new Functions(source);
        StringBuilder out = new StringBuilder();
        for (Segment segment : TemplateParser.parse(template)) {
            if (segment instanceof Text text) {
                out.append(text.text());
                continue;
            }
            Action action = (Action) segment;
            Object value = functions.evaluate(action);
            if (value instanceof Addrs) {
                throw new SockaddrException("\"" + action.source() + "\" ends with a list of interfaces; finish the"
                        + " pipeline with | attr \"address\" (the first) or | join \"address\" \" \" (all)");
            }
            String rendered = value.toString();
            if (rendered.isBlank()) {
                throw new SockaddrException("template evaluated to no address: \"" + action.source()
                        + "\" found nothing on this host");
            }
            out.append(rendered);
        }
        String result = out.toString().strip();
        if (result.isEmpty()) {
            throw new SockaddrException("template evaluated to no address");
        }
        return result;
    }

    /**
     * Renders a template that must give exactly one address (with or without a port), as Nomad requires for bind and
     * advertise addresses.
     *
     * @throws SockaddrException as {@link #render}, or when the result holds several space-separated addresses
     */
    public static String renderSingle(String template, Interfaces source) throws SockaddrException {
        String result = render(template, source);
        if (result.split("\\s+").length > 1) {
            throw new SockaddrException("template evaluated to several addresses (\"" + result
                    + "\"); narrow it to one, e.g. with | limit 1 or attr \"address\"");
        }
        return result;
    }
}
