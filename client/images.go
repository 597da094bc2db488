package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// ImageURL is the image to show of a perfume: the transparent WebP when it
// exists (imageTransparentAvailable), else the JPEG, which always does.
func ImageURL(image, transparent string, available bool) string {
	if available && transparent != "" {
		return transparent
	}
	return image
}

// Image is an image's bytes and their type.
type Image struct {
	Body        []byte
	ContentType string
	// Transparent is set when Body is the transparent image.
	Transparent bool
}

// FetchImage gets a perfume's transparent image, and its JPEG instead
// when the transparent one is not made yet (404 with
// X-Service-Nobg-Status: not-processed, the documented answer). Images
// need no key.
func (c *Client) FetchImage(ctx context.Context, image, transparent string) (*Image, error) {
	if transparent != "" {
		img, res, err := c.get(ctx, transparent)
		if err != nil {
			return nil, err
		}
		if res.StatusCode == http.StatusOK {
			img.Transparent = true
			return img, nil
		}
		if res.StatusCode != http.StatusNotFound || res.Header.Get("X-Service-Nobg-Status") != "not-processed" {
			return nil, problemOf(res, img.Body)
		}
	}
	img, res, err := c.get(ctx, image)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, problemOf(res, img.Body)
	}
	return img, nil
}

// maxImage bounds an image read (the service's are some 15-50 KB).
const maxImage = 8 << 20

// get GETs url (with retries) and reads its body.
func (c *Client) get(ctx context.Context, url string) (*Image, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("fragrance client: %w", err)
	}
	res, err := c.do.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxImage))
	if err != nil {
		return nil, nil, err
	}
	return &Image{Body: b, ContentType: res.Header.Get("Content-Type")}, res, nil
}
