package io.github.incrementalrebalance.autoconfigure;

import java.io.File;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The live page in a real browser (Debian's headless Chromium, driven by Selenium) on a real broker: a (leave allowed)
 * and b (read-only), their restores throttled until the test lets them go. On a's page an operator asks b to leave:
 * the page shows b LEAVING and a's learners moving with an ETA, the cancel returns b to STABLE, and the leave clicked
 * again drains b until it is gone; b's own page offers no leave. Both run Spring Security with CSRF protection on, as a
 * single-page application sets it up: the page's writes carry the token. A leave is confirmed in a dialog first; the
 * focused button and the scroll position survive the page's refreshes. Without Chromium and its driver
 * ({@code apt-get install chromium chromium-driver}) the tests are skipped, unless the environment variable
 * {@code BROWSER_TESTS_REQUIRED=true} (set by {@code .ci/run}) makes that a failure.
 */
@Tag(TestTags.BROKER)
class RebalancePageBrowserTests {

	private static final Path CHROMIUM = Path.of(System.getProperty("browser.chromium", "/usr/bin/chromium"));

	private static final Path DRIVER = Path.of(System.getProperty("browser.chromedriver", "/usr/bin/chromedriver"));

	/** Where the test leaves its screenshot, which the operating guide shows (copied to docs/). */
	static final Path SCREENSHOT = Path.of("target", "screenshots", "rebalance-page.png");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private final RestoreThrottle throttle = RestoreThrottle.of(400);

	@TempDir
	Path stateRoot;

	private WebDriver browser;

	@BeforeEach
	void openBrowser() {
		boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
		if (Boolean.parseBoolean(System.getenv("BROWSER_TESTS_REQUIRED"))) {
			assertThat(installed).as("Chromium at %s and its driver at %s (apt-get install chromium chromium-driver)",
					CHROMIUM, DRIVER).isTrue();
		}
		assumeThat(installed).as("Chromium and chromium-driver installed").isTrue();
		ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
			.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900",
					"--user-data-dir=" + this.stateRoot.resolve("chromium"));
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
			.withLogFile(new File("target/chromedriver.log"))
			.build();
		this.browser = new ChromeDriver(service, options);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void anOperatorWatchesLearnersAndLeavesAndCancelsFromThePage() throws Exception {
		broker.createTopics(4, "page-app-input", "page-app-output");
		try (ConfigurableApplicationContext a = start("a", "unrestricted");
				ConfigurableApplicationContext b = start("b", "read-only");
				TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "page-app-input")) {
			this.browser.get(CountingBootApplication.uri(a, "/actuator/rebalance/page/index.html").toString());
			page("both members on a's page").atMost(Duration.ofMinutes(1))
				.until(() -> state("a").equals("STABLE") && state("b").equals("STABLE")
						&& row("b").getText().contains(" · incremental"));
			// a refresh may replace the table between finding a cell and reading it
			page().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(this.browser.findElement(By.cssSelector("#left td.empty")).getText())
					.isEqualTo("nobody left lately");
				assertThat(leaveButton("b").getDomAttribute("aria-label")).isEqualTo("Leave: b");
			});
			HttpResponse<String> withoutToken = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(CountingBootApplication.uri(a, "/actuator/rebalance/leave"))
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString("{\"instanceId\": \"b\"}"))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(withoutToken.statusCode()).as("a write without the CSRF token").isEqualTo(403);

			focus(() -> leaveButton("b"));
			String before = status();
			page("a refresh").atMost(Duration.ofSeconds(10)).until(() -> !status().equals(before));
			page().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(focused().getDomAttribute("data-focus"))
				.as("the focus after a refresh").isEqualTo("action:b"));
			producer.load(4, 10_000, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "page-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));

			click(() -> leaveButton("b"));
			WebElement confirm = this.browser.findElement(By.id("confirm"));
			assertThat(confirm.getDomProperty("open")).as("the confirmation is open").isEqualTo("true");
			assertThat(confirm.getText()).contains("Ask b to leave the group?").contains("hands its");
			assertThat(focused().getDomAttribute("id")).as("the safe choice has the focus").isEqualTo("confirm-keep");
			this.browser.findElement(By.id("confirm-keep")).click();
			assertThat(confirm.getDomProperty("open")).as("the confirmation is closed").isEqualTo("false");
			String kept = status();
			page("a refresh after keeping b").atMost(Duration.ofSeconds(10)).until(() -> !status().equals(kept));
			page().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(state("b")).as("kept: no leave asked").isEqualTo("STABLE"));
			assertThat(b.getBean(MemberRuntimes.class).all().get(0).state().name()).isEqualTo("STABLE");

			leave("b");
			page("b leaving on the page").atMost(Duration.ofSeconds(30)).until(() -> state("b").equals("LEAVING"));
			page("the plan that acts on the leave, above the one before").atMost(Duration.ofSeconds(10))
				.until(() -> this.browser.findElements(By.cssSelector("#decisions li")).size() >= 2
						&& this.browser.findElement(By.cssSelector("#decisions li")).getText().contains("leaving [b "));
			page("a's learners with an ETA on the page").atMost(Duration.ofSeconds(30))
				.until(() -> !learners("a").isEmpty() && learners("a").stream()
					.allMatch((learner) -> learner.getText().matches("(?s).*lag [\\d,]+ · [\\d,]+/s · ETA (\\d+ min )?\\d+ s.*")));
			AtomicLong lagBefore = new AtomicLong();
			page("a's learners' lag read").atMost(Duration.ofSeconds(10)).until(() -> {
				lagBefore.set(totalLag(learners("a")));
				return true;
			});
			page("the learners' lag falls on the page").atMost(Duration.ofSeconds(30))
				.until(() -> !learners("a").isEmpty() && totalLag(learners("a")) < lagBefore.get());
			page().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(row("a")
				.findElements(By.cssSelector("[role=progressbar]"))).isNotEmpty()
				.allSatisfy((bar) -> assertThat(bar.getDomAttribute("aria-label")).startsWith("learner of "))
				.allSatisfy((bar) -> assertThat(bar.getDomAttribute("aria-valuenow")).matches("\\d+")));
			page("b's drain with its ETA").atMost(Duration.ofSeconds(10))
				.until(() -> row("b").findElement(By.cssSelector("td.drain")).getText()
					.matches("0/\\d learners ready · ETA (\\d+ min )?\\d+ s.*"));
			Files.createDirectories(SCREENSHOT.getParent());
			Files.copy(((ChromeDriver) this.browser).getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOT,
					StandardCopyOption.REPLACE_EXISTING);

			page().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(row("b")
				.findElement(By.cssSelector("button.cancel")).getDomAttribute("aria-label"))
				.isEqualTo("Cancel the leave of b"));
			click(() -> row("b").findElement(By.cssSelector("button.cancel")));
			page("b stable again on the page").atMost(Duration.ofSeconds(30)).until(() -> state("b").equals("STABLE"));
			assertThat(b.getBean(MemberRuntimes.class).all().get(0).state().name()).isEqualTo("STABLE");

			this.browser.get(CountingBootApplication.uri(b, "/actuator/rebalance/page/index.html").toString());
			page("b's read-only page").atMost(Duration.ofSeconds(30)).until(() -> state("a").equals("STABLE"));
			page("a disabled leave with a reason").atMost(Duration.ofSeconds(10))
				.until(() -> !leaveButton("a").isEnabled() && leaveButton("a").getDomAttribute("title").contains("read-only"));

			this.throttle.release();
			this.browser.get(CountingBootApplication.uri(a, "/actuator/rebalance/page/index.html").toString());
			page().atMost(Duration.ofSeconds(30)).until(() -> state("b").equals("STABLE"));
			this.browser.manage().window().setSize(new Dimension(900, 240));
			((JavascriptExecutor) this.browser).executeScript("window.scrollTo(0, document.body.scrollHeight)");
			long scrolled = scrollY();
			assertThat(scrolled).as("a page taller than the window").isPositive();
			String unscrolled = status();
			page("a refresh while scrolled").atMost(Duration.ofSeconds(10)).until(() -> !status().equals(unscrolled));
			assertThat(scrollY()).as("the scroll position after a refresh").isEqualTo(scrolled);
			this.browser.manage().window().setSize(new Dimension(1400, 900));
			leave("b");
			page("b drained and gone from the page").atMost(Duration.ofMinutes(2))
				.until(() -> this.browser.findElements(By.cssSelector("#members tr[data-instance='b']")).isEmpty()
						&& this.browser.findElement(By.cssSelector("#left tr[data-instance='b']")).getText()
							.contains("drained (learners-ready), 0 tasks moved cold"));
		}
	}

	@Test
	void thePageOfAnInstanceWhoseKafkaStreamsHasNotStartedSaysSo() {
		try (ConfigurableApplicationContext idle = start("idle", "unrestricted", "spring.kafka.streams.auto-startup=false")) {
			this.browser.get(CountingBootApplication.uri(idle, "/actuator/rebalance/page/index.html").toString());
			page("an empty group on the page").atMost(Duration.ofSeconds(30))
				.until(() -> this.browser.findElement(By.id("status")).getText().startsWith("updated "));
			page().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(this.browser.findElement(By.cssSelector("#members td.empty")).getText())
					.startsWith("no members");
				assertThat(this.browser.findElement(By.cssSelector("#left td.empty")).getText())
					.isEqualTo("nobody left lately");
				assertThat(this.browser.findElement(By.id("error")).getText()).isEmpty();
			});
		}
	}

	/**
	 * An await on the page, which re-renders its rows every two seconds: an element read between two renders is
	 * looked up again, and one a render has yet to add is waited for.
	 */
	private static ConditionFactory page(String alias) {
		return rendered(await(alias));
	}

	private static ConditionFactory page() {
		return rendered(await());
	}

	private static ConditionFactory rendered(ConditionFactory await) {
		return await.ignoreExceptionsMatching((thrown) -> thrown instanceof StaleElementReferenceException
				|| thrown instanceof NoSuchElementException);
	}

	/**
	 * Click a button of the page, looked up again if a render replaced it.
	 */
	private void click(Supplier<WebElement> button) {
		page("a click").atMost(Duration.ofSeconds(10)).until(() -> {
			button.get().click();
			return true;
		});
	}

	/**
	 * Ask a member to leave from its row, and confirm.
	 */
	private void leave(String instanceId) {
		click(() -> leaveButton(instanceId));
		click(() -> this.browser.findElement(By.id("confirm-leave")));
	}

	private void focus(Supplier<WebElement> element) {
		page("a focus").atMost(Duration.ofSeconds(10)).until(() -> {
			((JavascriptExecutor) this.browser).executeScript("arguments[0].focus()", element.get());
			return true;
		});
	}

	private WebElement focused() {
		return this.browser.switchTo().activeElement();
	}

	private String status() {
		return this.browser.findElement(By.id("status")).getText();
	}

	private long scrollY() {
		return ((Number) ((JavascriptExecutor) this.browser).executeScript("return window.scrollY")).longValue();
	}

	private ConfigurableApplicationContext start(String name, String access, String... more) {
		List<String> properties = new ArrayList<>(List.of("spring.kafka.streams.properties.state.cleanup.delay.ms=1000",
				"spring.kafka.streams.properties.acceptable.recovery.lag=1000",
				"incremental-rebalance.learners.progress-interval=1s", "incremental-rebalance.drain.on-drained=stop-streams",
				"management.endpoints.web.exposure.include=rebalance", "management.endpoint.rebalance.access=" + access,
				"test.security.csrf=true"));
		properties.addAll(List.of(more));
		return CountingBootApplication.start(broker, "page-app", name, this.stateRoot, this.throttle, true,
				properties.toArray(String[]::new));
	}

	private WebElement row(String instanceId) {
		return this.browser.findElement(By.cssSelector("#members tr[data-instance='" + instanceId + "']"));
	}

	private String state(String instanceId) {
		List<WebElement> rows = this.browser.findElements(By.cssSelector("#members tr[data-instance='" + instanceId + "']"));
		return rows.isEmpty() ? "" : rows.get(0).getDomAttribute("data-state");
	}

	private WebElement leaveButton(String instanceId) {
		return row(instanceId).findElement(By.cssSelector("button.leave"));
	}

	private List<WebElement> learners(String instanceId) {
		List<WebElement> rows = this.browser.findElements(By.cssSelector("#members tr[data-instance='" + instanceId + "']"));
		return rows.isEmpty() ? List.of() : rows.get(0).findElements(By.cssSelector(".learner:not(.ready)"));
	}

	private static long totalLag(List<WebElement> learners) {
		long total = 0;
		for (WebElement learner : learners) {
			String text = learner.findElement(By.cssSelector(".progress")).getText();
			total += Long.parseLong(text.replaceAll("(?s)^lag ([\\d,]+) .*", "$1").replace(",", ""));
		}
		return total;
	}

}
