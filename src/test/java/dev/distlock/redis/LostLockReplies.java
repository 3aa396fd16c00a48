package dev.distlock.redis;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.redisson.client.NettyHook;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A netty hook for a Redisson client ({@code Config.setNettyHook}) that loses the reply to the next
 * command sent for one lock: Redis runs it (the script that takes the lock) and answers, then the
 * connection breaks before the answer reaches the client, as a link that drops at that moment leaves
 * it. Only bytes on the client's own connections are touched; Redis itself is real.
 */
final class LostLockReplies implements NettyHook {

    private static final ByteBuf NO_SCRIPT = Unpooled.unreleasableBuffer(Unpooled.copiedBuffer("-NOSCRIPT", StandardCharsets.UTF_8));

    private final ByteBuf name;
    private final AtomicBoolean armed = new AtomicBoolean(true);
    private final AtomicReference<String> lostReply = new AtomicReference<>();

    /**
     * Loses the reply to the next command that names the lock {@code name} (but a refusal of a script
     * Redis does not have yet, {@code -NOSCRIPT}: the client then sends the script itself, whose reply is lost).
     */
    LostLockReplies(String name) {
        this.name = Unpooled.unreleasableBuffer(Unpooled.copiedBuffer(name, StandardCharsets.UTF_8));
    }

    /**
     * Whether Redis granted the lock whose reply was lost: the scripts that take a lock answer nil
     * when they took it ({@code $-1} in RESP2, {@code _} in RESP3), else the time left of the holder's lease.
     */
    boolean grantLost() {
        String reply = lostReply.get();
        return reply != null && (reply.startsWith("$-1") || reply.startsWith("_"));
    }

    @Override
    public String toString() {
        return "the reply lost: " + lostReply.get();
    }

    @Override
    public void afterBoostrapInitialization(Bootstrap bootstrap) {
        // nothing: every channel is handled as it is made
    }

    @Override
    public void afterChannelInitialization(Channel channel) {
        channel.pipeline().addFirst("distlock-test-lost-replies", new OnConnection());
    }

    /** First in the pipeline: it sees the bytes as they leave and as they arrive. */
    private final class OnConnection extends ChannelDuplexHandler {
        private volatile boolean losingNextReply;

        @Override
        public void write(ChannelHandlerContext context, Object message, ChannelPromise promise) throws Exception {
            if (message instanceof ByteBuf command && ByteBufUtil.indexOf(name, command) >= 0 && armed.compareAndSet(true, false)) {
                losingNextReply = true;
            }
            super.write(context, message, promise);
        }

        @Override
        public void channelRead(ChannelHandlerContext context, Object message) throws Exception {
            if (losingNextReply && message instanceof ByteBuf reply) {
                losingNextReply = false;
                if (ByteBufUtil.indexOf(NO_SCRIPT, reply) == reply.readerIndex()) {
                    // Redis does not have the script yet: the client sends it with the command again.
                    armed.set(true);
                    super.channelRead(context, message);
                    return;
                }
                lostReply.set(reply.toString(StandardCharsets.UTF_8));
                reply.release();
                context.close(); // the link broke: the reply never arrives
                return;
            }
            super.channelRead(context, message);
        }
    }
}
