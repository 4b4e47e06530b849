/** Rasterizes an SVG to PNG with resvg, using the DejaVu fonts shipped by npm so text renders without system fonts. */
import { createRequire } from "node:module";
import { Resvg } from "@resvg/resvg-js";

const require = createRequire(import.meta.url);

/** Font family that the generic `sans-serif` of the chart maps to. */
const CHART_FONT_FAMILY = "DejaVu Sans";

/** Paths of the bundled TrueType fonts (resvg reads TTF/OTF, not WOFF2). */
export function bundledFontFiles(): string[] {
  return ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"].map((file) => require.resolve(`dejavu-fonts-ttf/ttf/${file}`));
}

/** Renders SVG text to PNG bytes at `scale` times its size, on white. */
export function renderPng(svg: string, scale = 2): Buffer {
  const resvg = new Resvg(svg, {
    background: "white",
    fitTo: { mode: "zoom", value: scale },
    font: {
      fontFiles: bundledFontFiles(),
      loadSystemFonts: true,
      defaultFontFamily: CHART_FONT_FAMILY,
      sansSerifFamily: CHART_FONT_FAMILY,
    },
  });
  return resvg.render().asPng();
}
