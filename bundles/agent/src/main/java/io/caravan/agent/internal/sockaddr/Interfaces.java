package io.caravan.agent.internal.sockaddr;

import java.util.List;
import java.util.Optional;

/** The host's interface addresses a template is evaluated against: the real ones or a fake set in tests. */
public interface Interfaces {

    /** Every address on every interface, in interface order (go-sockaddr's {@code GetAllInterfaces}). */
    List<IfAddr> addresses() throws SockaddrException;

    /** The name of the interface holding the default route, if one can be found. */
    Optional<String> defaultInterface();

    /** The real interfaces of this machine. */
    static Interfaces system() {
        return new SystemInterfaces();
    }

    /** A fixed set with no default route. */
    static Interfaces of(List<IfAddr> addresses) {
        return of(addresses, null);
    }

    /** A fixed set whose default route goes through {@code defaultInterface} (null for none). */
    static Interfaces of(List<IfAddr> addresses, String defaultInterface) {
        List<IfAddr> copy = List.copyOf(addresses);
        return new Interfaces() {
            @Override
            public List<IfAddr> addresses() {
                return copy;
            }

            @Override
            public Optional<String> defaultInterface() {
                return Optional.ofNullable(defaultInterface);
            }
        };
    }
}
