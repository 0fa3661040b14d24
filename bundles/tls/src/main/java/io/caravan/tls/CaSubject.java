package io.caravan.tls;

/**
 * The distinguished name of a CA that {@code tls ca create} makes; the serial number is appended to the common
 * name, as Nomad does ({@code Nomad Agent CA 1234...}). Blank parts are left out of the name.
 */
public record CaSubject(String commonName, String country, String postalCode, String province, String locality,
                        String streetAddress, String organization, String organizationalUnit) {

    /** Nomad's default CA subject. */
    public static final CaSubject NOMAD = new CaSubject("Nomad Agent CA", "US", "94105", "CA", "San Francisco",
            "101 Second Street", "HashiCorp Inc.", "Nomad");

    public CaSubject {
        if (commonName == null || commonName.isBlank()) {
            throw new IllegalArgumentException("a CA needs a common name");
        }
    }
}
