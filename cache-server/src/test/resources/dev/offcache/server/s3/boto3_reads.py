"""boto3 against the offcache S3 API (S3ApiOverS3OriginTest): a ranged GET, a HEAD, a listing and a presigned URL
fetched with urllib and a Range header. Keys come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.

usage: boto3_reads.py ENDPOINT BUCKET KEY FIRST LAST OUT_DIR  (writes OUT_DIR/range.bin and OUT_DIR/presigned.bin,
prints key=value lines)
"""
import os
import sys
import urllib.request

import boto3
from botocore.config import Config

endpoint, bucket, key, first, last, out = sys.argv[1:7]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  config=Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                retries={"max_attempts": 1}))
ranged = s3.get_object(Bucket=bucket, Key=key, Range="bytes=%s-%s" % (first, last))
with open(os.path.join(out, "range.bin"), "wb") as f:
    f.write(ranged["Body"].read())
print("content-range=" + ranged["ContentRange"])
head = s3.head_object(Bucket=bucket, Key=key)
print("length=%d" % head["ContentLength"])
print("etag=" + head["ETag"])
prefix = key.rsplit("/", 1)[0] + "/"
for listed in s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", []):
    print("listed=%s %d" % (listed["Key"], listed["Size"]))
url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=300)
request = urllib.request.Request(url, headers={"Range": "bytes=%s-%s" % (first, last)})
with urllib.request.urlopen(request) as response:
    print("presigned-status=%d" % response.status)
    with open(os.path.join(out, "presigned.bin"), "wb") as f:
        f.write(response.read())
