package io.caravan.agent.internal.sockaddr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

class SystemInterfacesTest {

    @Test
    @EnabledOnOs(OS.LINUX)
    void findsTheLoopbackAddressOnThisMachine() throws Exception {
        String first = SockaddrTemplate.render(
                "{{ GetAllInterfaces | include \"flags\" \"loopback\" | attr \"address\" }}", Interfaces.system());
        assertTrue(InetAddress.getByName(first).isLoopbackAddress(), first + " is not a loopback address");
        for (IfAddr a : Interfaces.system().addresses()) {
            assertFalse(a.addressText().contains("%"), "no scope ids in " + a);
        }
    }

    @Test
    void picksTheLowestMetricIPv4DefaultRoute() {
        List<String> route = List.of(
                "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
                "wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0",
                "eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0",
                "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
                "tun0\t00000000\t00000000\t0000\t0\t0\t0\t00000000\t0\t0\t0"); // not up
        assertEquals(Optional.of("eth0"), SystemInterfaces.defaultRouteIPv4(route));
        assertEquals(Optional.empty(), SystemInterfaces.defaultRouteIPv4(route.subList(0, 1)));
        assertEquals(Optional.empty(), SystemInterfaces.defaultRouteIPv4(List.of(route.get(0), route.get(3))),
                "a route to 192.0.2.0/24 is not a default route");
    }

    @Test
    void picksTheIPv6DefaultRouteButNotTheKernelsUnreachableOnes() {
        String zero = "0".repeat(32);
        List<String> route = List.of(
                zero + " 00 " + zero + " 00 " + zero + " ffffffff 00000001 00000000 00200200       lo",
                "fe800000000000000000000000000000 40 " + zero + " 00 " + zero
                        + " 00000100 00000001 00000000 00000001     eth1",
                zero + " 00 " + zero + " 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003"
                        + "     eth1",
                zero + " 00 " + zero + " 00 fe800000000000000000000000000002 00000100 00000001 00000000 00000003"
                        + "     eth2");
        assertEquals(Optional.of("eth2"), SystemInterfaces.defaultRouteIPv6(route));
        assertEquals(Optional.empty(), SystemInterfaces.defaultRouteIPv6(route.subList(0, 2)));
    }
}
