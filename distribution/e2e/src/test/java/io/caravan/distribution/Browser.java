package io.caravan.distribution;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Debian Chromium driven through Debian's chromedriver (both paths set, so Selenium Manager never
 * downloads anything), with a fresh profile, for the {@code *BrowserE2EIT} tier. Without the two packages the tier
 * fails with what to install, unless {@code -Dcaravan.browser.skip=true} skips it.
 */
final class Browser implements AutoCloseable {
    static final Path CHROMIUM = Paths.get(System.getProperty("caravan.chromium", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Paths.get(System.getProperty("caravan.chromedriver", "/usr/bin/chromedriver"));
    static final Path SCREENSHOTS = Paths.get("target/screenshots");
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final int MIN_WINDOW_WIDTH = 500;

    final ChromeDriver driver;
    private final Path profile;
    private final String base;

    private Browser(ChromeDriver driver, Path profile, String base) {
        this.driver = driver;
        this.profile = profile;
        this.base = base;
    }

    /** A browser at {@code width}×{@code height} whose {@link #open} paths are relative to {@code base}. */
    static Browser start(String base, int width, int height) throws IOException {
        if (Boolean.getBoolean("caravan.browser.skip")) {
            Assumptions.abort("caravan.browser.skip=true: the browser tier is skipped");
        }
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            throw new AssertionError("The browser tests need " + CHROMIUM + " and " + CHROMEDRIVER
                    + ": install chromium chromium-driver (apt-get install -y chromium chromium-driver), or skip "
                    + "them with -Dcaravan.browser.skip=true");
        }
        Path profile = Files.createTempDirectory("caravan-chromium-");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless",
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile, "--window-size=" + width + "," + height);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(width, height));
        if (width < MIN_WINDOW_WIDTH) {
            // Headless Chromium keeps a window at least ~500 px wide: a phone's viewport is emulated instead.
            driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                    "deviceScaleFactor", 1, "mobile", true));
        }
        return new Browser(driver, profile, base);
    }

    void open(String path) {
        driver.get(base + path);
    }

    <T> T await(String what, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, WAIT).withMessage(what).until(condition);
    }

    <T> T await(String what, Duration limit, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, limit).withMessage(what).until(condition);
    }

    WebElement find(String css) {
        return find(By.cssSelector(css));
    }

    /** The first element {@code by} finds, waiting for the page to render it (pages render after their fetches). */
    WebElement find(By by) {
        return await("an element " + by, d -> d.findElements(by).stream().findFirst().orElse(null));
    }

    /** Saves the page as {@code target/screenshots/<name>.png} (a test artifact). */
    void screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Files.write(SCREENSHOTS.resolve(name + ".png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            AgentProcess.deleteTree(profile);
        }
    }
}
