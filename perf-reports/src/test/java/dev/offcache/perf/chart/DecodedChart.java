package dev.offcache.perf.chart;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.imageio.ImageIO;

/**
 * A chart PNG decoded back into what a reader sees: its bars, found by their exact colours (bars are drawn without
 * anti-aliasing), and where text is (dark pixels).
 */
public final class DecodedChart
{
    /** A bar: columns {@code [x0, x1)}, rows {@code [top, top + height)}, its colour. */
    public record BarRect(int x0, int x1, int top, int height, int rgb)
    {
        public int length()
        {
            return x1 - x0;
        }
    }

    private final BufferedImage image;

    private DecodedChart(final BufferedImage image)
    {
        this.image = image;
    }

    public static DecodedChart read(final Path png) throws IOException
    {
        final BufferedImage image = ImageIO.read(png.toFile());
        if (image == null)
        {
            throw new IOException(png + " does not decode as an image");
        }
        return new DecodedChart(image);
    }

    public int width()
    {
        return image.getWidth();
    }

    public int height()
    {
        return image.getHeight();
    }

    public int rgb(final int x, final int y)
    {
        return image.getRGB(x, y) & 0xffffff;
    }

    /**
     * The bars in the given colours, top to bottom: rectangles exactly {@link HorizontalBarChart#BAR_HEIGHT} high
     * (legend swatches are smaller). A bar's top row is whole (whiskers cross its middle rows only).
     */
    public List<BarRect> bars(final Set<Integer> colours)
    {
        final List<BarRect> bars = new ArrayList<>();
        for (int y = 0; y < height(); y++)
        {
            int x = 0;
            while (x < width())
            {
                final int colour = rgb(x, y);
                if (!colours.contains(colour))
                {
                    x++;
                    continue;
                }
                final int start = x;
                while (x < width() && rgb(x, y) == colour)
                {
                    x++;
                }
                if (y > 0 && anyOf(colour, start, x, y - 1))
                {
                    continue;
                }
                final int middle = (start + x) / 2;
                int height = 0;
                while (y + height < height() && (rgb(middle, y + height) == colour || dark(middle, y + height)))
                {
                    height++;
                }
                if (height == HorizontalBarChart.BAR_HEIGHT)
                {
                    bars.add(new BarRect(start, x, y, height, colour));
                }
            }
        }
        return bars;
    }

    /** Dark (text or whisker) pixels in a rectangle. */
    public int darkPixels(final int x0, final int y0, final int x1, final int y1)
    {
        int count = 0;
        for (int y = Math.max(0, y0); y < Math.min(height(), y1); y++)
        {
            for (int x = Math.max(0, x0); x < Math.min(width(), x1); x++)
            {
                if (dark(x, y))
                {
                    count++;
                }
            }
        }
        return count;
    }

    /** The bounding box {x0, y0, x1, y1} of the dark pixels in a rectangle, or null when there are none. */
    public int[] darkBox(final int x0, final int y0, final int x1, final int y1)
    {
        int minX = Integer.MAX_VALUE;
        int minY = Integer.MAX_VALUE;
        int maxX = -1;
        int maxY = -1;
        for (int y = Math.max(0, y0); y < Math.min(height(), y1); y++)
        {
            for (int x = Math.max(0, x0); x < Math.min(width(), x1); x++)
            {
                if (dark(x, y))
                {
                    minX = Math.min(minX, x);
                    minY = Math.min(minY, y);
                    maxX = Math.max(maxX, x);
                    maxY = Math.max(maxY, y);
                }
            }
        }
        return maxX < 0 ? null : new int[] {minX, minY, maxX + 1, maxY + 1};
    }

    /** Whether every pixel within {@code margin} of the edges is the background: nothing runs off the image. */
    public boolean blankBorder(final int margin)
    {
        for (int y = 0; y < height(); y++)
        {
            for (int x = 0; x < width(); x++)
            {
                final boolean border = x < margin || y < margin || x >= width() - margin || y >= height() - margin;
                if (border && rgb(x, y) != (HorizontalBarChart.BACKGROUND.getRGB() & 0xffffff))
                {
                    return false;
                }
            }
        }
        return true;
    }

    public boolean contains(final int colour)
    {
        for (int y = 0; y < height(); y++)
        {
            for (int x = 0; x < width(); x++)
            {
                if (rgb(x, y) == colour)
                {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean anyOf(final int colour, final int x0, final int x1, final int y)
    {
        for (int x = x0; x < x1; x++)
        {
            if (rgb(x, y) == colour)
            {
                return true;
            }
        }
        return false;
    }

    private boolean dark(final int x, final int y)
    {
        final int rgb = rgb(x, y);
        return (rgb >> 16 & 0xff) < 0x70 && (rgb >> 8 & 0xff) < 0x70 && (rgb & 0xff) < 0x70;
    }
}
