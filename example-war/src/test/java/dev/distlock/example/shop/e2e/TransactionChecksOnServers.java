package dev.distlock.example.shop.e2e;

import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * distlock's transaction rules on a real server, through the shop's {@code /api/checks}: a bean
 * that is {@code @Transactional} through a stereotype runs in a transaction with distlock deployed,
 * and a later caller on the thread of an asynchronous {@code @Transactional} locked call does not
 * enter its lock while the call's stage is unfinished.
 */
final class TransactionChecksOnServers {

    /** Calls of each check per server. */
    static final int CALLS = 8;

    private TransactionChecksOnServers() {
    }

    /** Runs both checks on every server; prints and returns what they answered, by check. */
    static Map<String, Map<String, Integer>> assertOn(ShopHttp http, List<String> urls, String runtime) {
        Map<String, Map<String, Integer>> answers = new TreeMap<>();
        for (int server = 0; server < urls.size(); server++) {
            for (int i = 0; i < CALLS; i++) {
                count(answers, "stereotype", http.send(post(urls.get(server) + "/api/checks/stereotype")));
                count(answers, "asynchronous", http.send(post(urls.get(server) + "/api/checks/asynchronous/"
                        + E2eShop.uniqueSku("LATER") + "-" + server + "-" + i)));
            }
        }
        System.out.println(runtime + ": a stereotyped @Transactional bean, and a later caller after an asynchronous"
                + " @Transactional locked call on its thread: " + answers);
        int calls = CALLS * urls.size();
        assertEquals(Map.of("200 in a transaction", calls), answers.get("stereotype"), "the stereotyped bean's transaction");
        assertEquals(Map.of("200 refused", calls), answers.get("asynchronous"), "the later caller on the thread");
        return answers;
    }

    private static HttpRequest post(String url) {
        return ShopHttp.request(url).header("Accept", "text/plain").POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private static void count(Map<String, Map<String, Integer>> answers, String check, ShopHttp.Answer answer) {
        answers.computeIfAbsent(check, c -> new TreeMap<>()).merge(answer.status() + " " + answer.body(), 1, Integer::sum);
    }
}
