import java.lang.instrument.Instrumentation;
import java.security.Provider;
import java.security.SecureRandomSpi;
import java.security.Security;
import java.util.SplittableRandom;

/**
 * A java agent for the wine test harness only (tests/wine/run compiles it with --release 17 into
 * its cache and passes it with -javaagent; it is never part of a Ferry jar). It puts a
 * non-cryptographic SecureRandom provider first, so that no JDK SecureRandom is seeded.
 *
 * <p>Why: under wine 8, JDK 21 and 25 abort ("Internal Error (0xc06d007f)") on the first seed of
 * their default SecureRandom. {@code File.createTempFile} and {@code Files.createTempDirectory}
 * (JUnit's {@code @TempDir}, the extraction of native libraries) get there through
 * {@code SeedGenerator.addNetworkAdapterInfo} and {@code NetworkInterface.getAll}, because net.dll
 * delay-loads {@code iphlpapi!GetAnycastIpAddressTable}, which wine 8 lacks. Real Windows has it.
 * Temporary file names need uniqueness, not secrecy, so a SplittableRandom is enough here.
 */
public final class WineRandomAgent {
    private WineRandomAgent() {
    }

    /**
     * Installs the provider before the application's main method runs.
     *
     * @param args unused
     * @param inst unused
     */
    public static void premain(String args, Instrumentation inst) {
        Security.insertProviderAt(new WineRandomProvider(), 1);
    }

    /** Offers one SecureRandom algorithm, {@code WineTestRandom}. */
    static final class WineRandomProvider extends Provider {
        private static final long serialVersionUID = 1L;

        WineRandomProvider() {
            super("FerryWineTestRandom", "1.0", "Non-cryptographic SecureRandom for Ferry's wine test harness");
            putService(new Service(this, "SecureRandom", "WineTestRandom", Spi.class.getName(), null, null));
        }
    }

    /** A SecureRandomSpi over a SplittableRandom (seeded from the clock and nanoTime, not the OS). */
    public static final class Spi extends SecureRandomSpi {
        private static final long serialVersionUID = 1L;
        private SplittableRandom random = new SplittableRandom(System.nanoTime() ^ System.currentTimeMillis() * 0x9E3779B97F4A7C15L);

        /** Creates one (the provider framework calls this). */
        public Spi() {
        }

        @Override
        protected synchronized void engineSetSeed(byte[] seed) {
            long s = random.nextLong();
            for (byte b : seed) {
                s = s * 31 + b;
            }
            random = new SplittableRandom(s);
        }

        @Override
        protected synchronized void engineNextBytes(byte[] bytes) {
            random.nextBytes(bytes);
        }

        @Override
        protected byte[] engineGenerateSeed(int numBytes) {
            byte[] b = new byte[numBytes];
            engineNextBytes(b);
            return b;
        }
    }
}
